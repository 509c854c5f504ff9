/**
 * Run-time support copied verbatim into every compiled Playwright project as
 * `stepdeck-runtime.ts`: the `Stepdeck` helper (`sd`) each compiled spec makes and calls for
 * every step. It must only import `@playwright/test`, `node:` modules and its siblings, copied
 * beside it, so the exported project runs unmodified with `npx playwright test`:
 *
 * - `stepdeck-templates.ts`: `{{vars.X}}` / `{{parameters.X}}` / `{{data.X}}` / `{{env.X}}` /
 *   `{{secrets.X}}` templating, `if` conditions' comparison, JSON paths;
 * - `stepdeck-locators.ts`: locators, frames, and the diagnosis (`stepdeck-heal.ts`,
 *   `stepdeck-suggest.ts`) and retry of a step whose locator failed;
 * - `stepdeck-guard.ts`: only http(s) targets for steps, and the egress proxy's refusals as failures;
 * - `stepdeck-results.ts`: what a result carries for the service's report (annotations);
 * - `stepdeck-email.ts` (inbox polling), `stepdeck-page.ts` (page scripts, history,
 *   patterns), `stepdeck-tabs.ts` (tabs, popups, frames).
 *
 * This file owns what is the same for every step: step conditions (skip, alwaysRun, if),
 * failure bookkeeping (the first error fails the test, later siblings only run if
 * `alwaysRun`), API responses, and the step methods the specs call on `sd`. What the
 * compiled specs import from the runtime (`Stepdeck`, `readJsonPath`) is exported here, so a
 * spec names one file whatever sibling holds the code.
 */
import path from 'node:path';
import { type BrowserContext, type Locator, type Page, type TestInfo, test } from '@playwright/test';
import {
  type EmailRecord,
  emailLink,
  inboxQuery,
  pollInbox,
  type WaitForEmailOptions,
} from './stepdeck-email.ts';
import { assertRequestPassed, gotoThroughEgress, webTarget } from './stepdeck-guard.ts';
import type { HealMode } from './stepdeck-heal.ts';
import { StepLocators } from './stepdeck-locators.ts';
import { containingPatterns, evaluateInPage, traverseHistory, userPattern } from './stepdeck-page.ts';
import { expectationAnnotation, skipDiscardedScreenshots, VISUAL_ANNOTATION } from './stepdeck-results.ts';
import { closeTab, type PopupTrigger, switchTab, type TabQuery, waitForPopup } from './stepdeck-tabs.ts';
import { lookup, resolveEach, resolveTemplate, sameValue } from './stepdeck-templates.ts';

export type { EmailRecord, WaitForEmailOptions } from './stepdeck-email.ts';
export { egressAnswer, webTarget } from './stepdeck-guard.ts';
export { HEAL_ANNOTATION } from './stepdeck-locators.ts';
export { EXPECTATION_ANNOTATION, VISUAL_ANNOTATION } from './stepdeck-results.ts';
export { environmentEnvVar, readJsonPath, secretEnvVar } from './stepdeck-templates.ts';

export type StepCondition =
  | { type: 'skip' }
  | { type: 'alwaysRun' }
  | { type: 'if'; variable: string; equals: unknown }
  | null
  | undefined;

/** One level of the step tree: once a step in it failed, later siblings only run if `alwaysRun`. */
export interface StepScope {
  failed: boolean;
}

export interface ApiResponseRecord {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text. */
  body: unknown;
  text: string;
}

/** What an `assertScreenshot` step asks of `stepdeck-visual.ts`. */
export interface VisualOptions {
  stepId: string;
  /** The baseline's path (absent: the step has none on this branch yet). */
  baseline: string;
  selector?: string;
  mask: string[];
  maxDiffPixels?: number;
  maxDiffPixelRatio?: number;
  /** pixelmatch's per-pixel colour threshold (0 exact … 1 anything), 0.2 as Playwright's. */
  threshold?: number;
  fullPage?: boolean;
  /** How long the page may take to settle or to match, ms (Playwright's expect default). */
  timeout?: number;
}

/** The part of `stepdeck-visual.ts` the runtime calls. */
interface VisualModule {
  checkScreenshot(
    page: Page,
    testInfo: TestInfo,
    options: VisualOptions,
  ): Promise<{ record: unknown; failure: string | null }>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Stepdeck {
  readonly vars: Record<string, unknown>;
  readonly parameters: Record<string, unknown>;
  /** The data set row this test runs (`{{data.<column>}}`); empty without a data set. */
  readonly data: Record<string, string>;
  readonly testInfo: TestInfo;
  readonly root: StepScope = { failed: false };
  private readonly inboxApiUrl: string | undefined;
  /** The first error; rethrown by `finish()` so Playwright reports it with its location. */
  private error: unknown = undefined;
  private failedAny = false;
  private lastResponse: ApiResponseRecord | undefined;
  private previousStepStartedAt = new Date();
  private currentStepStartedAt = new Date();
  /** The test's browser context (browser tests): its pages are the ones Playwright screenshots. */
  private context: BrowserContext | undefined;
  /** The running step's locators and frames, and the healing of a step whose locator failed. */
  private readonly locators: StepLocators;
  /** The spec's own `test.use` (a context that differs from its project's), over the project's. */
  private readonly ownContext: Record<string, unknown>;

  constructor(
    testInfo: TestInfo,
    init: {
      vars?: Record<string, unknown> | null;
      parameters?: Record<string, unknown> | null;
      data?: Record<string, string> | null;
      inboxApiUrl?: string;
      heal?: HealMode;
      context?: Record<string, unknown>;
    },
  ) {
    this.testInfo = testInfo;
    this.locators = new StepLocators(testInfo, init.heal ?? 'suggest');
    this.vars = { ...(init.vars ?? {}) };
    this.parameters = { ...(init.parameters ?? {}) };
    this.data = { ...(init.data ?? {}) };
    this.inboxApiUrl = init.inboxApiUrl;
    this.ownContext = init.context ?? {};
  }

  /** A `use` option as the test sees it: the spec's own `test.use`, else its project's. */
  useOption(name: 'baseURL' | 'actionTimeout'): unknown {
    return name in this.ownContext
      ? this.ownContext[name]
      : (this.testInfo.project.use as Record<string, unknown>)[name];
  }

  /** Runs one step (an action, or a group whose body runs its children) under its condition. */
  async step(
    scope: StepScope,
    title: string,
    condition: StepCondition,
    body: (scope: StepScope) => Promise<void>,
    stepId?: string,
  ): Promise<void> {
    if (condition?.type === 'skip') {
      await test.step
        .skip(title, async () => {});
      return;
    }
    if (scope.failed && condition?.type !== 'alwaysRun') {
      await test.step
        .skip(`${title} (not run: an earlier step failed)`, async () => {});
      return;
    }
    if (condition?.type === 'if' && !sameValue(lookup(this.vars, condition.variable), condition.equals)) {
      await test.step
        .skip(`${title} (not run: vars.${condition.variable} does not match)`, async () => {});
      return;
    }
    const inner: StepScope = { failed: false };
    try {
      await test.step(title, async () => {
        this.previousStepStartedAt = this.currentStepStartedAt;
        this.currentStepStartedAt = new Date();
        this.locators.startStep();
        // A second attempt (`heal: retry`) runs the step's children afresh.
        await this.locators.healing(stepId, () => {
          inner.failed = false;
          return body(inner);
        });
        // A failed child fails its group too (the same error object, so one location).
        if (inner.failed) throw this.error;
      });
    } catch (error) {
      scope.failed = true;
      if (!this.failedAny) {
        this.failedAny = true;
        this.error = error;
        const expectation = expectationAnnotation(error);
        if (expectation) this.testInfo.annotations.push(expectation);
      }
    }
  }

  /**
   * `page.locator()` for a step's selector (templates resolved), noted so a failure can be
   * diagnosed; while a healed step runs again, the suggestion stands in for it.
   */
  locator(page: Page, selector: string): Locator {
    return this.locators.locator(page, selector, (written) => this.t(written));
  }

  /** The running step's `frame` option: its selectors are looked up inside these `<iframe>`s. */
  frame(frames: string | string[]): void {
    this.locators.frame((Array.isArray(frames) ? frames : [frames]).map((frame) => this.t(frame)));
  }

  /** `waitForPopup`: acts on the element and returns the tab or popup it opened. */
  waitForPopup(
    page: Page,
    target: Locator,
    options: { selector: string; action?: PopupTrigger; key?: string; timeout?: number },
  ): Promise<Page> {
    const key = options.key === undefined ? undefined : this.t(options.key);
    return waitForPopup(page, target, {
      ...options,
      ...(key === undefined ? {} : { key }),
      timeout: options.timeout ?? this.actionTimeout(),
    });
  }

  /** `switchTab`: the open tab by index, URL or title (templates resolved). */
  switchTab(page: Page, query: TabQuery, timeout?: number): Promise<Page> {
    const resolved: TabQuery = { ...query };
    if (query.url !== undefined) resolved.url = this.t(query.url);
    if (query.title !== undefined) resolved.title = this.t(query.title);
    return switchTab(page.context(), resolved, timeout ?? this.actionTimeout());
  }

  /** `closeTab`: closes the current tab (or the one at `index`); returns the page steps go on with. */
  closeTab(page: Page, index?: number): Promise<Page> {
    return closeTab(page.context(), page, index);
  }

  private actionTimeout(): number {
    const value = this.useOption('actionTimeout');
    return typeof value === 'number' && value > 0 ? value : 10_000;
  }

  /** Ends the test: the first failure (if any) fails it. */
  finish(): void {
    if (this.failedAny) throw this.error;
    this.skipDiscardedScreenshots();
  }

  /** Spares a passing test the screenshot Playwright would take and discard (`stepdeck-results.ts`). */
  private skipDiscardedScreenshots(): void {
    skipDiscardedScreenshots(this.testInfo, this.context);
  }

  /** Resolves `{{vars.X}}`, `{{parameters.X}}`, `{{data.X}}`, `{{env.X}}` and `{{secrets.X}}` in a string. */
  t(template: string): string {
    return resolveTemplate(template, this);
  }

  /** The test's browser context, from its first page: the pages Playwright screenshots. */
  attach(page: Page): void {
    this.context = page.context();
  }

  /**
   * `goto` after templating: refuses anything but http(s) once resolved against baseURL. Through
   * the egress proxy, a navigation it refused (the URL, or a redirect on the way) fails with the
   * rule, and one it could not complete with the error Chromium would have given.
   */
  async goto(page: Page, url: string): Promise<void> {
    await gotoThroughEgress(page, webTarget(url, this.baseURL(), 'goto'));
  }

  /** A `request` step's URL after templating, refused unless http(s) once resolved. */
  requestUrl(url: string): string {
    return webTarget(url, this.baseURL(), 'request');
  }

  private baseURL(): string | undefined {
    const value = this.useOption('baseURL');
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  /** Templating applied to every string inside a JSON value (request bodies, expected values). */
  tv<T>(value: T): T {
    return resolveEach(value, (template) => this.t(template));
  }

  /** Runs a page script (`evaluate`, `assertScript`) in the page and returns its value. */
  evaluate(page: Page, script: string): Promise<unknown> {
    return evaluateInPage(page, script);
  }

  goBack(page: Page): Promise<void> {
    return traverseHistory(page, 'back');
  }

  goForward(page: Page): Promise<void> {
    return traverseHistory(page, 'forward');
  }

  /** A step's regular expression (`regex: true` values, `assertScript`'s `matches`). */
  pattern(source: string): RegExp {
    return userPattern(source);
  }

  /** `assertTexts` without `exact`: each element contains its text (templates resolved). */
  containing(texts: string[]): RegExp[] {
    return containingPatterns(this.tv(texts));
  }

  /** A file shipped with the project (for `setInputFiles`), relative to the config file. */
  file(relativePath: string): string {
    const root = this.testInfo.config.configFile
      ? path.dirname(this.testInfo.config.configFile)
      : process.cwd();
    return path.join(root, relativePath);
  }

  /** Saves a screenshot into the test's output folder and returns its path. */
  async screenshotFile(page: Page, file: string): Promise<string> {
    const target = this.testInfo.outputPath(file);
    await page.screenshot({ path: target });
    return target;
  }

  /**
   * `assertScreenshot`: compares with the baseline the runner wrote into the project (none: the
   * screenshot is a candidate and the step passes). `stepdeck-visual.ts` and its two packages
   * load only in a test that has such a step.
   */
  async assertScreenshot(page: Page, options: VisualOptions): Promise<void> {
    // Named through a variable: the file is in the project only when a test has this step, and
    // type-checking an exported project without one must not look for it.
    const visualFile = './stepdeck-visual.ts';
    const { checkScreenshot } = (await import(visualFile)) as VisualModule;
    const mask = options.mask.map((selector) => this.t(selector));
    const selector = options.selector === undefined ? undefined : this.t(options.selector);
    const { record, failure } = await checkScreenshot(page, this.testInfo, {
      ...options,
      mask,
      ...(selector === undefined ? {} : { selector }),
      baseline: this.file(options.baseline),
    });
    this.testInfo.annotations.push({ type: VISUAL_ANNOTATION, description: JSON.stringify(record) });
    if (failure) throw new Error(failure);
  }

  /** When the step before the running one started: `waitForResponse` looks back to it. */
  previousStepStart(): Date {
    return this.previousStepStartedAt;
  }

  setVar(name: string, value: unknown): void {
    this.vars[name] = value;
  }

  async recordResponse(
    response: {
      status(): number;
      headers(): Record<string, string>;
      text(): Promise<string>;
      url?(): string;
    },
    variable?: string,
  ): Promise<ApiResponseRecord> {
    assertRequestPassed(response);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    const record: ApiResponseRecord = { status: response.status(), headers: response.headers(), body, text };
    this.lastResponse = record;
    if (variable) this.vars[variable] = record;
    return record;
  }

  response(): ApiResponseRecord {
    if (!this.lastResponse) throw new Error('no request step ran before this assertion');
    return this.lastResponse;
  }

  async wait(ms: number): Promise<void> {
    await sleep(ms);
  }

  /** Polls the service's inbox API until a matching message arrives (`stepdeck-email.ts`). */
  async waitForEmail(options: WaitForEmailOptions): Promise<EmailRecord> {
    const resolve = (template: string) => this.t(template);
    return pollInbox(
      inboxQuery(options, { resolve, since: this.previousStepStartedAt, inboxApiUrl: this.inboxApiUrl }),
    );
  }

  /** The first URL of an email stored by `waitForEmail` that contains `contains`. */
  emailLink(variable: string, contains?: string): string {
    const email = this.vars[variable] as Partial<EmailRecord> | undefined;
    return emailLink(email, variable, contains, (template) => this.t(template));
  }
}
