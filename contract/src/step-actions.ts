import { z } from 'zod';

/**
 * The step-action vocabulary. Every action is `{ name, description?, ...fields }`. String
 * values may use `{{vars.NAME}}`, `{{parameters.NAME}}` and `{{secrets.NAME}}`.
 */
const text = (field: string) => z.string({ error: `${field} is required and must be a string` });
const selector = text('selector').min(1, 'selector must not be empty');
const base = { description: z.string().optional() };
const action = <N extends string, S extends z.ZodRawShape>(name: N, shape: S) =>
  z.object({ name: z.literal(name), ...base, ...shape }).loose();

export const stepActionSchemas = [
  action('goto', { url: text('url') }),
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
    url: text('url'),
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
