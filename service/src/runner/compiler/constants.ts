/** Names and defaults shared by the compiler, the runtime's reader (the executor) and the config. */

export const RUNTIME_FILE = 'stepdeck-runtime.ts';
/**
 * The parts of the `Stepdeck` helper beside the runtime, copied into every project (it imports
 * them): templating, locators and healing, load guards, result annotations.
 */
export const RUNTIME_PART_FILES = [
  'stepdeck-templates.ts',
  'stepdeck-locators.ts',
  'stepdeck-guard.ts',
  'stepdeck-results.ts',
] as const;
/** The runtime's inbox polling, copied beside it (it imports `./stepdeck-email.ts`). */
export const EMAIL_RUNTIME_FILE = 'stepdeck-email.ts';
/** Page scripts, history and patterns, copied beside the runtime (it imports `./stepdeck-page.ts`). */
export const PAGE_RUNTIME_FILE = 'stepdeck-page.ts';
/** Tabs, popups and frames, copied beside the runtime (it imports `./stepdeck-tabs.ts`). */
export const TABS_RUNTIME_FILE = 'stepdeck-tabs.ts';
export const TEST_ID_ANNOTATION = 'stepdeck-test-id';
/** Test annotation with the data set row a test runs (JSON `{ index, name }`), read by the report map. */
export const DATA_ROW_ANNOTATION = 'stepdeck-data-row';
/** Locator suggestions at a failure, copied beside the runtime (it imports `./stepdeck-heal.ts`). */
export const HEAL_RUNTIME_FILE = 'stepdeck-heal.ts';
/** The suggestions' ranking (pure), imported by the runtime and `stepdeck-heal.ts`. */
export const SUGGEST_RUNTIME_FILE = 'stepdeck-suggest.ts';
/** Written by the runtime when a step's locator failed (see `stepdeck-heal.ts`). */
export const HEAL_ANNOTATION = 'stepdeck-heal';
/** Written by the runtime when an assertion fails (see `recordExpectation`). */
export const EXPECTATION_ANNOTATION = 'stepdeck-expectation';
/**
 * Chromium's flags in every run and export. Not `--no-sandbox`: the sandbox is the config's
 * `chromiumSandbox`, on when the runner isolates runs ({@link SANDBOX_ENV_VAR}); Playwright
 * adds `--no-sandbox` itself when it is off.
 */
export const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
/**
 * Added to Chromium's flags when the runner's egress proxy is set: WebRTC sends its STUN and
 * media over UDP straight from the browser, past any HTTP proxy, so a page could otherwise
 * reach every UDP port of the host and the metadata address. With this policy WebRTC uses only
 * what the proxy carries (TURN over TCP through it, under the same egress rules).
 */
export const EGRESS_CHROMIUM_ARGS = ['--force-webrtc-ip-handling-policy=disable_non_proxied_udp'];
/** Set to `1` by the runner when Chromium runs with its own sandbox (runner/isolation.ts). */
export const SANDBOX_ENV_VAR = 'STEPDECK_CHROMIUM_SANDBOX';
/**
 * The runner's egress proxy (runner/egress-proxy.ts), set by the executor: the config sends
 * the browser and the request fixture through it; unset (an exported project), no proxy.
 */
export const EGRESS_PROXY_ENV_VAR = 'STEPDECK_EGRESS_PROXY';
/** `use.actionTimeout: 0` means this default (the spec). */
export const DEFAULT_ACTION_TIMEOUT_MS = 60_000;

/** The environment variable holding a project secret at run time (same rule as the runtime). */
export function secretEnvVar(name: string): string {
  return `STEPDECK_SECRET_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The environment variable holding a variable of the run's environment (same rule as the runtime). */
export function environmentEnvVar(name: string): string {
  return `STEPDECK_ENV_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The visual checks' runtime, copied beside the runtime and loaded only by `assertScreenshot`. */
export const VISUAL_RUNTIME_FILE = 'stepdeck-visual.ts';
/** Written by the runtime for each `assertScreenshot` (see `stepdeck-visual.ts`). */
export const VISUAL_ANNOTATION = 'stepdeck-visual';
/**
 * Where a step's baseline is handed to a run, relative to the project: the runner writes the
 * branch's baselines there before the run starts (the run cannot reach the service), and a
 * step without one records its screenshot as a candidate.
 */
export function visualBaselineFile(testId: string, stepId: string): string {
  const segment = (value: string) => value.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
  return `visual-baselines/${segment(testId)}/${segment(stepId)}.png`;
}

/** Web Vitals observers and readers, copied beside the runtime when a test measures vitals. */
export const VITALS_RUNTIME_FILE = 'stepdeck-vitals.ts';
/** Written by `stepdeck-vitals.ts` for each `measureVitals` / `assertVitals`. */
export const VITALS_ANNOTATION = 'stepdeck-vitals';
