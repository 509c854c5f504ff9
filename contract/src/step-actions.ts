import { z } from 'zod';
import {
  assertAccessibleShape,
  checkMockAnswer,
  mockRouteShape,
  totpShape,
  waitForResponseShape,
} from './network-steps.ts';

/**
 * The step-action vocabulary. Every action is `{ name, description?, ...fields }`. String
 * values may use `{{vars.NAME}}`, `{{parameters.NAME}}` and `{{secrets.NAME}}`.
 */
const text = (field: string) => z.string({ error: `${field} is required and must be a string` });
const selector = text('selector').min(1, 'selector must not be empty');
const base = { description: z.string().optional() };

/**
 * The scheme a step's URL names for certain, lower-case without the colon, or null when it
 * names none yet: a path relative to `baseURL`, a `{{…}}` template in front, `localhost:3000`
 * (Playwright completes that to http). Tabs and newlines are dropped anywhere and controls and
 * spaces at the start, as the URL parser does, so `fi\tle:` is still `file`.
 */
export function definiteUrlScheme(url: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL parser ignores these too
  const cleaned = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  if (cleaned.startsWith('localhost') || cleaned.startsWith('127.0.0.1')) return 'http';
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(cleaned);
  return match?.[1] ? match[1].toLowerCase() : null;
}

/**
 * Why a navigation or request URL is refused, or null. Only http and https reach the browser
 * or the HTTP client (and `about:blank` for navigation): `file:` would read the server's own
 * files, `view-source:`, `chrome:`, `javascript:` and `data:` have no place in a test either.
 * The runtime checks again after `{{…}}` substitution and `baseURL` resolution.
 */
export function refusedUrlReason(url: string, kind: 'navigation' | 'request'): string | null {
  const scheme = definiteUrlScheme(url);
  if (scheme === null || scheme === 'http' || scheme === 'https') return null;
  if (kind === 'navigation' && url.trim().toLowerCase() === 'about:blank') return null;
  return `url must be an http or https URL or a path relative to baseURL; "${scheme}:" is not allowed`;
}

const webUrl = (kind: 'navigation' | 'request') =>
  text('url').superRefine((url, ctx) => {
    const reason = refusedUrlReason(url, kind);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
/** How many `<iframe>`s deep a step's `frame` may reach. */
export const maxFrameDepth = 5;
const frameSelector = z
  .string({ error: 'frame must be an iframe selector or a list of them' })
  .min(1, 'a frame selector must not be empty');
/**
 * The `<iframe>` a step's selector is looked for in: its selector, or a list of them from the
 * outer frame in (nested frames). Every action with a `selector` takes it.
 */
const frame = z
  .union(
    [frameSelector, z.array(frameSelector, { error: 'frame must be an iframe selector or a list of them' })],
    {
      error: 'frame must be an iframe selector or a list of them',
    },
  )
  .refine((value) => !Array.isArray(value) || value.length > 0, 'frame must name at least one iframe')
  .refine(
    (value) => !Array.isArray(value) || value.length <= maxFrameDepth,
    `frame nests at most ${maxFrameDepth} iframes`,
  )
  .optional();
type FrameShape<N extends string, S> = N extends 'assertScreenshot'
  ? Record<never, never>
  : S extends { selector: unknown }
    ? { frame: typeof frame }
    : Record<never, never>;
const action = <N extends string, S extends z.ZodRawShape>(name: N, shape: S) =>
  z
    .object({
      name: z.literal(name),
      ...base,
      ...shape,
      // A screenshot's selector is not looked up through `sd.locator`, so it has no frame.
      ...(('selector' in shape && name !== 'assertScreenshot' ? { frame } : {}) as FrameShape<N, S>),
    })
    .loose();

/** Options every assertion on the page takes: `not` inverts it, `timeout` (ms) replaces the default wait. */
const assertion = {
  not: z.boolean({ error: 'not must be true or false' }).optional(),
  timeout: z
    .number({ error: 'timeout must be a number of milliseconds' })
    .int('timeout must be a whole number of milliseconds')
    .min(0, 'timeout must not be negative')
    .max(600_000, 'timeout must be at most 600000 ms')
    .optional(),
};

/**
 * Why `pattern` is not a regular expression JavaScript accepts, or null. A pattern holding a
 * `{{…}}` template is checked when the step runs, once the template is resolved.
 */
export function invalidPatternReason(pattern: string): string | null {
  if (pattern.includes('{{')) return null;
  try {
    new RegExp(pattern);
    return null;
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
}

/** With `regex: true`, `value` must compile as a regular expression. */
const regexValue = <T extends z.ZodObject>(schema: T) =>
  schema.superRefine((step, ctx) => {
    const { value, regex } = step as { value?: unknown; regex?: boolean };
    if (!regex || typeof value !== 'string') return;
    const reason = invalidPatternReason(value);
    if (reason) ctx.addIssue({ code: 'custom', path: ['value'], message: `value ${reason}` });
  });

const script = text('script').min(1, 'script must not be empty');

/** `assertVitals`: an upper limit per metric (ms, CLS unitless); the metrics left out are not checked. */
const vitalLimit = (field: string, unit: string) =>
  z
    .number({ error: `${field} must be a number${unit}` })
    .min(0, `${field} must not be negative`)
    .optional();
const vitalLimits = {
  lcpMs: vitalLimit('lcpMs', ' of milliseconds'),
  cls: vitalLimit('cls', ''),
  inpMs: vitalLimit('inpMs', ' of milliseconds'),
  tbtMs: vitalLimit('tbtMs', ' of milliseconds'),
  fcpMs: vitalLimit('fcpMs', ' of milliseconds'),
  ttfbMs: vitalLimit('ttfbMs', ' of milliseconds'),
};
const regex = z.boolean({ error: 'regex must be true or false' }).optional();

export const stepActionSchemas = [
  action('goto', { url: webUrl('navigation') }),
  action('reload', {}),
  action('goBack', {}),
  action('goForward', {}),
  // Tabs: the step that opens a popup or new tab makes it the current page; later steps act on it.
  action('waitForPopup', {
    selector,
    action: z
      .enum(['click', 'dblclick', 'press'], { error: 'action must be click, dblclick or press' })
      .optional(),
    key: z.string({ error: 'key must be a string' }).min(1, 'key must not be empty').optional(),
    timeout: assertion.timeout,
  }).superRefine((step, ctx) => {
    if (step.action === 'press' && step.key === undefined)
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'key is required when action is press' });
    if (step.action !== 'press' && step.key !== undefined)
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'key is only used when action is press' });
  }),
  action('switchTab', {
    index: z
      .number({ error: 'index must be a number' })
      .int('index must be a whole number')
      .min(0, 'index must not be negative (0 is the first tab)')
      .optional(),
    url: z.string({ error: 'url must be a string' }).min(1, 'url must not be empty').optional(),
    title: z.string({ error: 'title must be a string' }).min(1, 'title must not be empty').optional(),
    timeout: assertion.timeout,
  }).superRefine((step, ctx) => {
    const given = [step.index, step.url, step.title].filter((value) => value !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of index, url or title' });
    for (const key of ['url', 'title'] as const) {
      const value = step[key];
      const pattern = value === undefined ? undefined : /^\/(.*)\/([a-z]*)$/s.exec(value);
      if (!pattern || value?.includes('{{')) continue;
      try {
        new RegExp(pattern[1] ?? '', pattern[2]);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `${key} is not a valid regular expression: ${(error as Error).message}`,
        });
      }
    }
  }),
  action('closeTab', {
    index: z
      .number({ error: 'index must be a number' })
      .int('index must be a whole number')
      .min(0, 'index must not be negative (0 is the first tab)')
      .optional(),
  }),
  action('click', { selector }),
  action('dblclick', { selector }),
  action('hover', { selector }),
  action('fill', { selector, value: text('value') }),
  // Key by key, as a user types (each key fires its keyboard events): `pressSequentially`.
  action('type', {
    selector,
    value: text('value'),
    delay: z.number({ error: 'delay must be a number of milliseconds' }).int().min(0).max(10_000).optional(),
  }),
  action('press', { selector: z.string().optional(), key: text('key') }),
  action('check', { selector }),
  action('uncheck', { selector }),
  action('selectOption', { selector, value: text('value') }),
  action('setInputFiles', {
    selector,
    files: z.array(z.string(), { error: 'files must be an array of filenames' }),
  }),
  action('focus', { selector }),
  action('blur', { selector }),
  action('scrollIntoView', { selector }),
  action('dragTo', { selector, target: text('target').min(1, 'target must not be empty') }),
  action('dispatchEvent', {
    selector,
    event: text('event').min(1, 'event must not be empty'),
    eventInit: z.record(z.string(), z.unknown(), { error: 'eventInit must be a JSON object' }).optional(),
  }),
  action('wait', { ms: z.number({ error: 'ms must be a number' }).int().min(0).max(3_600_000) }),
  action('waitFor', { selector, state: z.enum(['attached', 'detached', 'visible', 'hidden']).optional() }),
  action('assertVisible', { selector, ...assertion }),
  action('assertHidden', { selector, ...assertion }),
  action('assertText', { selector, value: text('value'), exact: z.boolean().optional(), ...assertion }),
  // The ordered texts of every element the selector matches: Playwright's `toHaveText([...])`.
  action('assertTexts', {
    selector,
    values: z.array(z.string({ error: 'values must be a list of texts' }), {
      error: 'values must be a list of texts',
    }),
    exact: z.boolean().optional(),
    ...assertion,
  }),
  action('assertValue', { selector, value: text('value'), ...assertion }),
  action('assertChecked', {
    selector,
    checked: z.boolean({ error: 'checked must be true or false' }).optional(),
    ...assertion,
  }),
  action('assertEnabled', { selector, ...assertion }),
  action('assertDisabled', { selector, ...assertion }),
  action('assertClass', {
    selector,
    value: text('value').min(1, 'value must name at least one class'),
    exact: z.boolean().optional(),
    ...assertion,
  }),
  regexValue(
    action('assertAttribute', {
      selector,
      attribute: text('attribute').min(1, 'attribute must not be empty'),
      value: z.string({ error: 'value must be a string' }).optional(),
      regex,
      ...assertion,
    }),
  ),
  regexValue(
    action('assertCss', {
      selector,
      property: text('property').min(1, 'property must not be empty'),
      value: text('value'),
      regex,
      ...assertion,
    }),
  ),
  action('assertUrl', { value: text('value'), ...assertion }),
  action('assertTitle', { value: text('value'), ...assertion }),
  action('assertCount', {
    selector,
    value: z.number({ error: 'value must be a number' }).int().min(0),
    ...assertion,
  }),
  action('extract', { selector, variable: text('variable'), attribute: z.string().optional() }),
  // A script runs in the page (never in the runner): an expression, or a function body with `return`.
  action('evaluate', { script, variable: z.string().optional() }),
  // Polls the script until its value is truthy, equals `equals` or matches `matches`.
  action('assertScript', {
    script,
    equals: z.unknown().optional(),
    matches: z.string({ error: 'matches must be a regular expression as a string' }).optional(),
    ...assertion,
  }).superRefine((step, ctx) => {
    if (step.equals !== undefined && step.matches !== undefined)
      ctx.addIssue({ code: 'custom', path: ['matches'], message: 'give either equals or matches, not both' });
    const reason = step.matches === undefined ? null : invalidPatternReason(step.matches);
    if (reason) ctx.addIssue({ code: 'custom', path: ['matches'], message: `matches ${reason}` });
  }),
  // Compared with the baseline of its branch (the page, or one element); see docs/runner.md.
  action('assertScreenshot', {
    selector: z
      .string({ error: 'selector must be a string' })
      .min(1, 'selector must not be empty')
      .optional(),
    mask: z
      .array(z.string().min(1, 'a mask selector must not be empty'), {
        error: 'mask must be a list of selectors',
      })
      .max(50, 'mask takes at most 50 selectors')
      .optional(),
    maxDiffPixels: z
      .number({ error: 'maxDiffPixels must be a number of pixels' })
      .int('maxDiffPixels must be a whole number of pixels')
      .min(0, 'maxDiffPixels must not be negative')
      .optional(),
    maxDiffPixelRatio: z
      .number({ error: 'maxDiffPixelRatio must be a number between 0 and 1' })
      .min(0, 'maxDiffPixelRatio must be between 0 and 1')
      .max(1, 'maxDiffPixelRatio must be between 0 and 1')
      .optional(),
    threshold: z
      .number({ error: 'threshold must be a number between 0 and 1' })
      .min(0, 'threshold must be between 0 and 1')
      .max(1, 'threshold must be between 0 and 1')
      .optional(),
    fullPage: z.boolean({ error: 'fullPage must be true or false' }).optional(),
    timeout: assertion.timeout,
  }),
  // Web Vitals of the current page (LCP, CLS, INP/TBT, FCP, TTFB) into the test result.
  action('measureVitals', { label: z.string({ error: 'label must be a string' }).optional() }),
  action('assertVitals', vitalLimits).superRefine((step, ctx) => {
    if (Object.keys(vitalLimits).every((key) => step[key as keyof typeof vitalLimits] === undefined))
      ctx.addIssue({
        code: 'custom',
        message: 'give at least one limit: lcpMs, cls, inpMs, tbtMs, fcpMs or ttfbMs',
      });
  }),
  // The action's own `name` is its type, so the screenshot's file name is `label`.
  action('screenshot', { label: z.string().optional() }),
  action('request', {
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], {
      error: 'method must be an HTTP method',
    }),
    url: webUrl('request'),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    variable: z.string().optional(),
  }),
  action('assertStatus', { value: z.number({ error: 'value must be a number' }).int() }),
  action('assertJson', { path: text('path'), value: z.unknown() }),
  action('waitForEmail', {
    inbox: text('inbox'),
    subjectContains: z.string().optional(),
    from: z.string().optional(),
    timeoutMs: z.number().int().min(0).max(600_000).optional(),
    variable: text('variable'),
  }),
  action('gotoEmailLink', { variable: text('variable'), contains: z.string().optional() }),
  // Network mocks and responses, TOTP codes, accessibility: fields in network-steps.ts.
  action('mockRoute', mockRouteShape).superRefine(checkMockAnswer),
  action('waitForResponse', waitForResponseShape),
  action('totp', totpShape),
  action('assertAccessible', assertAccessibleShape),
  action('group', {}),
] as const;

export const stepActionNames = stepActionSchemas.map((schema) => schema.shape.name.value);
export type StepActionName = (typeof stepActionNames)[number];

export const stepAction = z.discriminatedUnion('name', stepActionSchemas, {
  error: (issue) =>
    issue.code === 'invalid_union' ? `action.name must be one of ${stepActionNames.join(', ')}` : undefined,
});
export type StepAction = z.infer<typeof stepAction>;

export const stepCondition = z.discriminatedUnion('type', [
  z.object({ type: z.literal('skip') }),
  z.object({ type: z.literal('alwaysRun') }),
  z.object({ type: z.literal('if'), variable: z.string(), equals: z.unknown() }),
]);
export type StepCondition = z.infer<typeof stepCondition>;

/**
 * How deep groups may nest in a step tree as written. The editor never needs more than a few
 * levels; past some hundreds, Playwright cannot even load the compiled spec (the stack runs out).
 */
export const maxStepDepth = 50;
/** The longest step name (test names take 64, copies 128). */
export const maxStepNameLength = 256;
/**
 * Default quotas on one test's step tree, install settings of the service: `MAX_STEPS_PER_TEST`
 * counts every node with shared steps expanded, groups included; `MAX_STEP_TREE_BYTES` is the
 * UTF-8 size of the stored steps (each step's name and its action, condition and metadata JSON).
 */
export const defaultMaxStepsPerTest = 2000;
export const defaultMaxStepTreeBytes = 1024 * 1024;

/** A step as the compiler sees it: resolved shared steps, ordered children. */
export interface StepNode {
  id: string;
  /**
   * The step's identity across branches (a branch's copy of a test shares its steps): what
   * per-step records such as visual baselines are keyed by. `id` names this tree's node.
   */
  stepId?: string;
  name: string;
  action: StepAction;
  condition?: StepCondition | null;
  children?: StepNode[];
}

/**
 * Validates one action and names the step and field on failure, e.g.
 * `step "Log in" (steps[2]): action.selector: selector is required and must be a string`.
 */
export function describeActionError(stepLabel: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? `action.${issue.path.join('.')}` : 'action.name';
  return `${stepLabel}: ${field}: ${issue?.message ?? 'invalid action'}`;
}
