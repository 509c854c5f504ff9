/**
 * Templating for `stepdeck-runtime.ts`, copied beside it into every compiled project: what
 * `sd.t` and `sd.tv` put in place of `{{vars.X}}`, `{{parameters.X}}`, `{{data.X}}`,
 * `{{env.X}}` and `{{secrets.X}}`, the value comparison of an `if` condition, and the JSON
 * paths of `assertJson`. Pure functions over the test's values and `process.env`, so they read
 * without a page; it imports nothing.
 *
 * Secrets and the run environment's variables are never written into a project: the runner
 * passes them as `STEPDECK_SECRET_<NAME>` and `STEPDECK_ENV_<NAME>` (the service's
 * `compiler/constants.ts` names the same variables).
 */

/** The values a template may name; the `Stepdeck` of the running test. */
export interface TemplateValues {
  readonly vars: Record<string, unknown>;
  readonly parameters: Record<string, unknown>;
  /** The data set row this test runs; empty without a data set. */
  readonly data: Record<string, string>;
}

const TEMPLATE = /\{\{\s*(vars|parameters|data|env|secrets)\.([^}\s]+)\s*\}\}/g;

/** Where a template's value comes from. */
export type TemplateKind = 'vars' | 'parameters' | 'data' | 'env' | 'secrets';

/** Each `{{kind.name}}` of a string replaced by what `value` gives for it (throwing stops it). */
export function replaceTemplates(
  template: string,
  value: (kind: TemplateKind, name: string) => string,
): string {
  return template.replace(TEMPLATE, (_match, kind: TemplateKind, name: string) => value(kind, name));
}

/** The environment variable holding a project secret at run time. */
export function secretEnvVar(name: string): string {
  return `STEPDECK_SECRET_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The environment variable holding a variable of the run's environment (`{{env.NAME}}`). */
export function environmentEnvVar(name: string): string {
  return `STEPDECK_ENV_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** `vars.user.id` reads nested objects; anything missing on the way is undefined. */
export function lookup(root: unknown, dotted: string): unknown {
  let current: unknown = root;
  for (const key of dotted.split('.')) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * An `if` condition's match: equal as JSON, or the same text for scalars, since a variable
 * read from a page is a string while the condition may have been written as `3` or `true`.
 */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (JSON.stringify(actual) === JSON.stringify(expected)) return true;
  const scalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  return scalar(actual) && scalar(expected) && String(actual) === String(expected);
}

/** `$.data[0].id`, `data[0].id` and `data.0.id` all name the same value. */
export function readJsonPath(value: unknown, jsonPath: string): unknown {
  const normalized = jsonPath.trim().replace(/^\$\.?/, '');
  if (normalized === '') return value;
  const keys = normalized
    .replace(
      /\[(?:'([^']*)'|"([^"]*)"|(\d+))\]/g,
      (_match, single, double, index) => `.${single ?? double ?? index}`,
    )
    .split('.')
    .filter((key) => key !== '');
  let current: unknown = value;
  for (const key of keys) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * A string with its templates resolved. A name that is not set fails the step with what is
 * missing and where it would come from, rather than running on with an empty text.
 */
export function resolveTemplate(template: string, values: TemplateValues): string {
  return replaceTemplates(template, (kind, name) => {
    if (kind === 'secrets') {
      const value = process.env[secretEnvVar(name)];
      if (value === undefined)
        throw new Error(`secret "${name}" is not set (environment ${secretEnvVar(name)})`);
      return value;
    }
    if (kind === 'env') {
      const value = process.env[environmentEnvVar(name)];
      if (value === undefined)
        throw new Error(`{{env.${name}}} is not defined (environment ${environmentEnvVar(name)})`);
      return value;
    }
    if (kind === 'data') {
      const cell = Object.hasOwn(values.data, name) ? values.data[name] : undefined;
      if (cell === undefined)
        throw new Error(`{{data.${name}}} is not defined: the test's data set has no column "${name}"`);
      return cell;
    }
    const value = lookup(kind === 'vars' ? values.vars : values.parameters, name);
    if (value === undefined) throw new Error(`{{${kind}.${name}}} is not defined`);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** `resolve` applied to every string inside a JSON value (request bodies, expected values). */
export function resolveEach<T>(value: T, resolve: (template: string) => string): T {
  if (typeof value === 'string') return resolve(value) as T;
  if (Array.isArray(value)) return value.map((item) => resolveEach(item, resolve)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveEach(item, resolve)]),
    ) as T;
  }
  return value;
}
