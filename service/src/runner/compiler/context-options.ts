import type { ResolvedRunConfig } from '@stepdeck/contract';
import { lit } from './code.ts';
import { DEFAULT_ACTION_TIMEOUT_MS } from './constants.ts';

/**
 * Which of a test's options decide its Playwright project and which it carries in its own spec.
 *
 * A Playwright project is a worker of its own, and a worker launches its own browser: a test with
 * its own locale or device in a project of its own pays a browser launch that raw Playwright's
 * `test.use({ locale })` does not (it stays in the same worker). So only what Playwright itself
 * scopes to the worker (browser, trace, video, screenshot) or the project (retries, timeout,
 * repeats), plus headers and credentials (code that reads secrets when the config loads), make
 * a project. The browser context options (base URL, timeouts, viewport, device, locale, time
 * zone, ...) go into the project's `use` when every test of the project shares them, and into
 * each spec's `test.use` when they differ.
 */

/** The options that make a project: tests that differ in them cannot share a worker. */
export function projectKey(config: ResolvedRunConfig): string {
  const { browserName, trace, video, screenshot } = config.use;
  const { extraHTTPHeaders, httpCredentials } = config.environment;
  return JSON.stringify({
    browserName,
    trace,
    video,
    screenshot,
    retries: config.retries,
    timeout: config.timeout,
    repeatEach: config.repeatEach,
    extraHTTPHeaders,
    httpCredentials,
  });
}

/** One `use` entry of a browser context: its key and the source line's value. */
export type ContextEntry = [key: string, source: string];

/** A Playwright project: its config (worker options from it), its specs and their shared context. */
export interface ProjectGroup {
  config: ResolvedRunConfig;
  specs: string[];
  shared: ContextEntry[];
}

/** A device preset is spread first: the config's own fields, after it, win. */
export const DEVICE = '...device';

/** The browser context options of a test's config, as `use` entries. */
export function contextEntries(config: ResolvedRunConfig): ContextEntry[] {
  const {
    device,
    extraHTTPHeaders: _headers,
    httpCredentials: _credentials,
    ...context
  } = config.environment;
  const values: Record<string, unknown> = {
    ...(config.use.baseURL ? { baseURL: config.use.baseURL } : {}),
    actionTimeout: config.use.actionTimeout === 0 ? DEFAULT_ACTION_TIMEOUT_MS : config.use.actionTimeout,
    // 0 is Playwright's "no limit", as in the spec.
    navigationTimeout: config.use.navigationTimeout,
    // A device brings its own viewport, unless the config sets one.
    ...(device && !config.viewportSet
      ? {}
      : { viewport: { width: config.viewport.width, height: config.viewport.height } }),
    ...context,
  };
  return [
    ...(device ? [[DEVICE, `devices[${lit(device)}]`] as ContextEntry] : []),
    ...Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]): ContextEntry => [key, lit(value)]),
  ];
}

/**
 * Splits a project's tests' context entries into those every test shares (the project's `use`)
 * and each test's own (its spec's `test.use`, by spec file). A test whose device is not shared
 * carries all of its entries, so that its own fields still come after the device's.
 */
export function splitContexts(members: Array<{ spec: string; entries: ContextEntry[] }>): {
  shared: ContextEntry[];
  own: Map<string, ContextEntry[]>;
} {
  const [first, ...rest] = members;
  const shared = (first?.entries ?? []).filter(([key, source]) =>
    rest.every((member) => member.entries.some(([k, s]) => k === key && s === source)),
  );
  const sharedKeys = new Set(shared.map(([key]) => key));
  const own = new Map<string, ContextEntry[]>();
  for (const member of members) {
    const ownDevice = usesDevice(member.entries) && !sharedKeys.has(DEVICE);
    const entries = ownDevice ? member.entries : member.entries.filter(([key]) => !sharedKeys.has(key));
    if (entries.length > 0) own.set(member.spec, entries);
  }
  return { shared, own };
}

/** Entries as the lines of a `use` object in the config, `indent` deep. */
export function configUseLines(entries: ContextEntry[], indent: string): string[] {
  return entries.map(([key, source]) =>
    key === DEVICE ? `${indent}...${source},` : `${indent}${key}: ${source},`,
  );
}

/**
 * A spec's own context: a `context` constant given to `test.use` and to the runtime (which reads
 * its base URL and action timeout). A device preset also names a browser type, a worker option
 * that would force a worker of its own: the spec takes the preset without it (the project names
 * the browser).
 */
export function specUseLines(entries: ContextEntry[]): string[] {
  if (entries.length === 0) return [];
  const lines = entries.map(([key, source]) =>
    key === DEVICE
      ? `  ...(({ defaultBrowserType: _browserType, ...options }) => options)(${source}),`
      : `  ${key}: ${source},`,
  );
  return [
    `// This test's own browser context (the project's other tests differ).`,
    `const context = {`,
    ...lines,
    `};`,
    `test.use(context);`,
  ];
}

/** Whether a spec's own context uses a device preset (it then imports `devices`). */
export const usesDevice = (entries: ContextEntry[]): boolean => entries.some(([key]) => key === DEVICE);
