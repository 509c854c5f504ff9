/**
 * Replay to a step: a test's steps run in a live session's page, so that the next step is picked
 * or recorded from the state they lead to. The page is driven by the service process, so this is
 * an interpreter of page actions through Playwright's API, never compiled code: no step's
 * script runs here, no request is sent from here, and no secret or run environment variable is
 * read (a step naming one stops the replay), so none can reach the live page.
 *
 * Steps that only read the page (assertions, extract excepted, and screenshots) are passed
 * over, except `assertVisible` and `assertHidden`, which are waited for: a flow often waits on
 * them for what a click brings. Anything else a live page should not do stops the replay at
 * that step, with why.
 */
import type { FrameLocator, Locator, Page } from '@playwright/test';
import { describeActionError, type LiveReplayStop, type StepAction, stepAction } from '@stepdeck/contract';
import { webTarget } from '../../runner/compiler/runtime/stepdeck-guard.ts';
import { frameScope } from '../../runner/compiler/runtime/stepdeck-tabs.ts';
import {
  lookup,
  replaceTemplates,
  resolveEach,
  sameValue,
} from '../../runner/compiler/runtime/stepdeck-templates.ts';
import type { ReplayStep } from './messages.ts';

/** The longest any one step of a replay may take (a `wait` longer than this waits this long). */
export const REPLAY_STEP_TIMEOUT_MS = 10_000;

/** Steps that only read the page: nothing of them changes the state the next step starts from. */
const passedOver = new Set<StepAction['name']>([
  'assertText',
  'assertTexts',
  'assertValue',
  'assertChecked',
  'assertEnabled',
  'assertDisabled',
  'assertClass',
  'assertAttribute',
  'assertCss',
  'assertUrl',
  'assertTitle',
  'assertCount',
  'screenshot',
]);

/** Why the steps a live page does not run are left to a real run. */
const notReplayed: Partial<Record<StepAction['name'], string>> = {
  evaluate: 'scripts run only in a test run',
  assertScript: 'scripts run only in a test run',
  request: 'requests are sent only in a test run',
  assertStatus: 'it checks a request, which only a test run sends',
  assertJson: 'it checks a request, which only a test run sends',
  waitForEmail: 'emails are read only in a test run',
  gotoEmailLink: 'emails are read only in a test run',
  setInputFiles: "the test's files are uploaded only in a test run",
  mockRoute: 'network mocks apply only in a test run',
  waitForResponse: 'network waits apply only in a test run',
  totp: 'one-time codes come from secrets, which only a test run reads',
  assertScreenshot: 'visual comparisons run only in a test run',
  measureVitals: 'Web Vitals are measured only in a test run',
  assertVitals: 'Web Vitals are measured only in a test run',
  assertAccessible: 'accessibility checks run only in a test run',
  waitForPopup: 'the live browser has one tab',
  switchTab: 'the live browser has one tab',
  closeTab: 'the live browser has one tab',
};

export interface ReplayInput {
  steps: ReplayStep[];
  vars?: Record<string, unknown> | undefined;
  parameters?: Record<string, unknown> | undefined;
  baseURL?: string | undefined;
}

export interface ReplayHooks {
  /** The session's own check of a URL to open (scheme and egress rules): throws with why not. */
  checkUrl(url: string): Promise<string>;
  progress(done: number, total: number, step: { stepId: string; name: string }): void;
}

export interface ReplayOutcome {
  done: number;
  total: number;
  stoppedAt?: LiveReplayStop;
}

class StepStopped extends Error {}

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** Steps that act (groups only hold them). */
function countSteps(steps: readonly ReplayStep[]): number {
  return steps.reduce(
    (sum, step) => sum + (step.action.name === 'group' ? countSteps(step.children ?? []) : 1),
    0,
  );
}

/** Runs `input.steps` in order, groups' children in theirs, until one cannot be run. */
export async function replaySteps(
  page: Page,
  input: ReplayInput,
  hooks: ReplayHooks,
): Promise<ReplayOutcome> {
  const total = countSteps(input.steps);
  const vars: Record<string, unknown> = { ...input.vars };
  const parameters = input.parameters ?? {};
  let done = 0;

  const resolve = (template: string) =>
    replaceTemplates(template, (kind, name) => {
      if (kind === 'secrets' || kind === 'env')
        throw new StepStopped(
          `{{${kind}.${name}}} is not filled in the live browser: ${kind === 'secrets' ? 'secrets' : "the run environment's variables"} enter only a test run`,
        );
      if (kind === 'data')
        throw new StepStopped(
          `{{data.${name}}} is not filled in the live browser: data set rows enter only a test run`,
        );
      const value = lookup(kind === 'vars' ? vars : parameters, name);
      if (value === undefined) throw new StepStopped(`{{${kind}.${name}}} is not defined`);
      return typeof value === 'string' ? value : JSON.stringify(value);
    });

  const run = async (steps: readonly ReplayStep[], passing: boolean): Promise<LiveReplayStop | undefined> => {
    for (const step of steps) {
      const name = step.name || step.action.name;
      const condition = step.condition;
      let skipped = passing || condition?.type === 'skip';
      if (!skipped && condition?.type === 'if') {
        const variable = String(condition.variable ?? '');
        skipped = !sameValue(lookup(vars, variable), condition.equals);
      } else if (!skipped && condition && !['skip', 'alwaysRun'].includes(condition.type))
        return { stepId: step.id, name, reason: `its condition "${condition.type}" is not known` };
      if (step.action.name === 'group') {
        const stopped = await run(step.children ?? [], skipped);
        if (stopped) return stopped;
        continue;
      }
      if (!skipped) {
        hooks.progress(done, total, { stepId: step.id, name });
        try {
          await runStep(page, step, { resolve, vars, baseURL: input.baseURL, checkUrl: hooks.checkUrl });
        } catch (error) {
          const reason =
            error instanceof StepStopped ? error.message : `${step.action.name}: ${firstLine(error)}`;
          return { stepId: step.id, name, reason };
        }
      }
      done += 1;
    }
    return undefined;
  };

  const stoppedAt = await run(input.steps, false);
  return stoppedAt ? { done, total, stoppedAt } : { done, total };
}

async function runStep(
  page: Page,
  step: ReplayStep,
  context: {
    resolve(template: string): string;
    vars: Record<string, unknown>;
    baseURL: string | undefined;
    checkUrl(url: string): Promise<string>;
  },
): Promise<void> {
  const parsed = stepAction.safeParse(step.action);
  if (!parsed.success) throw new StepStopped(describeActionError('its action is not valid', parsed.error));
  const why = notReplayed[parsed.data.name];
  if (why) throw new StepStopped(`${parsed.data.name} is not replayed in the live browser (${why})`);
  // Every string of the step, so a secret named anywhere in it stops it before it acts.
  const action = resolveEach(parsed.data, context.resolve);
  if (passedOver.has(action.name)) return;
  const timeout = REPLAY_STEP_TIMEOUT_MS;
  const frame = (action as { frame?: string | string[] }).frame;
  const frames = frame === undefined ? [] : [frame].flat();
  const scope: Page | FrameLocator = frameScope(page, frames);
  const locate = (selector: string): Locator => scope.locator(selector);
  switch (action.name) {
    case 'goto': {
      let target: string;
      try {
        target = webTarget(action.url, context.baseURL || undefined, 'goto');
      } catch (error) {
        throw new StepStopped(firstLine(error));
      }
      // The same check as the session's address bar: http(s) only, and the egress rules.
      const allowed = await context.checkUrl(target).catch((error: unknown) => {
        throw new StepStopped(`goto: ${firstLine(error)}`);
      });
      await page.goto(allowed, { timeout });
      return;
    }
    case 'reload':
      await page.reload({ timeout });
      return;
    case 'goBack':
      await page.goBack({ timeout });
      return;
    case 'goForward':
      await page.goForward({ timeout });
      return;
    case 'click':
    case 'dblclick':
    case 'hover':
    case 'check':
    case 'uncheck':
    case 'focus':
    case 'blur':
      await locate(action.selector)[action.name]({ timeout });
      return;
    case 'fill':
      await locate(action.selector).fill(action.value, { timeout });
      return;
    case 'type':
      await locate(action.selector).pressSequentially(action.value, {
        timeout,
        ...(action.delay ? { delay: action.delay } : {}),
      });
      return;
    case 'press':
      if (action.selector) await locate(action.selector).press(action.key, { timeout });
      else await page.keyboard.press(action.key);
      return;
    case 'selectOption':
      await locate(action.selector).selectOption(action.value, { timeout });
      return;
    case 'scrollIntoView':
      await locate(action.selector).scrollIntoViewIfNeeded({ timeout });
      return;
    case 'dragTo':
      await locate(action.selector).dragTo(locate(action.target), { timeout });
      return;
    case 'dispatchEvent':
      await locate(action.selector).dispatchEvent(action.event, action.eventInit, { timeout });
      return;
    case 'wait':
      await page.waitForTimeout(Math.min(action.ms, timeout));
      return;
    case 'waitFor':
      await locate(action.selector).waitFor({ state: action.state ?? 'visible', timeout });
      return;
    case 'assertVisible':
    case 'assertHidden': {
      const visible = (action.name === 'assertVisible') !== (action.not === true);
      await locate(action.selector).waitFor({
        state: visible ? 'visible' : 'hidden',
        timeout: Math.min(action.timeout ?? timeout, timeout),
      });
      return;
    }
    case 'extract': {
      const found = locate(action.selector);
      context.vars[action.variable] =
        action.attribute === 'value'
          ? await found.inputValue({ timeout })
          : action.attribute
            ? ((await found.getAttribute(action.attribute, { timeout })) ?? '')
            : ((await found.textContent({ timeout })) ?? '').trim();
      return;
    }
    default:
      throw new StepStopped(`${action.name} is not replayed in the live browser`);
  }
}
