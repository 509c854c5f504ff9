import { z } from 'zod';

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
const action = <N extends string, S extends z.ZodRawShape>(name: N, shape: S) =>
  z.object({ name: z.literal(name), ...base, ...shape }).loose();

export const stepActionSchemas = [
  action('goto', { url: webUrl('navigation') }),
  action('click', { selector }),
  action('dblclick', { selector }),
  action('hover', { selector }),
  action('fill', { selector, value: text('value') }),
  action('press', { selector: z.string().optional(), key: text('key') }),
  action('check', { selector }),
  action('uncheck', { selector }),
  action('selectOption', { selector, value: text('value') }),
  action('setInputFiles', {
    selector,
    files: z.array(z.string(), { error: 'files must be an array of filenames' }),
  }),
  action('wait', { ms: z.number({ error: 'ms must be a number' }).int().min(0).max(3_600_000) }),
  action('waitFor', { selector, state: z.enum(['attached', 'detached', 'visible', 'hidden']).optional() }),
  action('assertVisible', { selector }),
  action('assertHidden', { selector }),
  action('assertText', { selector, value: text('value'), exact: z.boolean().optional() }),
  action('assertValue', { selector, value: text('value') }),
  action('assertUrl', { value: text('value') }),
  action('assertTitle', { value: text('value') }),
  action('assertCount', { selector, value: z.number({ error: 'value must be a number' }).int().min(0) }),
  action('extract', { selector, variable: text('variable'), attribute: z.string().optional() }),
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
