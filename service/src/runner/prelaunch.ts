/**
 * The browser a waiting worker (standby-worker-main.ts) launches before its run is known, so
 * that the run's first test does not wait for Chromium to start: on two cores, with four
 * batches starting at once, that launch was 0.3–0.6 s of every batch's critical path
 * (docs/orchestrated-runs.md).
 *
 * It is Chromium as the compiled config launches it (`CHROMIUM_PATH`, the config's flags,
 * headless), started with the standby's neutral environment: no secret, the service's time
 * zone and language, and a HOME and TMPDIR of the standby's own, removed when its process
 * group ends (standby.ts). The worker's
 * `chromium.launch` is wrapped so that Playwright Test's `browser` fixture receives this
 * browser when it asks for exactly these options; it is then pointed at the folders Playwright
 * Test gave the worker for traces, videos and downloads (the run's `.playwright-artifacts-N`),
 * as a browser launched with them would be. Any other launch (other options, another time zone
 * or language, another browser type, a pre-launch that failed) closes it and launches as Playwright would: the run then
 * behaves exactly as without a standby, only not faster. One browser, for one run: a standby
 * takes exactly one job.
 */
import {
  CHROMIUM_ARGS,
  EGRESS_CHROMIUM_ARGS,
  EGRESS_PROXY_ENV_VAR,
  SANDBOX_ENV_VAR,
} from './compiler/constants.ts';

interface LaunchOptions {
  executablePath?: string;
  args?: string[];
  headless?: boolean;
  tracesDir?: string;
  artifactsDir?: string;
  [key: string]: unknown;
}
interface Browser {
  isConnected(): boolean;
  close(): Promise<void>;
}
interface BrowserType {
  launch(options?: LaunchOptions): Promise<Browser>;
}
interface PlaywrightCore {
  chromium: BrowserType;
  firefox: BrowserType;
  webkit: BrowserType;
  /** What Playwright Test's `_browserOptions` fixture sets (its `launchOptions` and folders). */
  _defaultLaunchOptions?: LaunchOptions;
}
/** Playwright's server-side browser, reachable in process through the client's connection. */
interface ServerBrowser {
  options: { artifactsDir?: string; downloadsPath?: string; tracesDir?: string };
}
interface ClientInternals {
  _connection?: { toImpl?(object: unknown): ServerBrowser | undefined };
  _connectToBrowserType?(browserType: BrowserType, options: LaunchOptions, logger: unknown): void;
}

/**
 * The environment Chromium reads that a run passes on from the service (the executor's
 * pass-through list): its time zone and language. Standbys carry it (standby.ts), so the
 * browser launched ahead has the service's; a run whose differs gets a browser of its own.
 */
export const BROWSER_ENV = ['TZ', 'LANG', 'LC_ALL', SANDBOX_ENV_VAR, EGRESS_PROXY_ENV_VAR];
const browserEnv = () => JSON.stringify(BROWSER_ENV.map((key) => process.env[key] ?? null));

/** Options Playwright Test adds to every launch; the folders are set on the browser instead. */
const PER_WORKER = new Set(['handleSIGINT', 'tracesDir', 'artifactsDir']);

/** The launch options of the compiled config for this Chromium (project-files.ts). */
function configuredLaunch(executablePath: string): LaunchOptions {
  return {
    executablePath,
    args: process.env[EGRESS_PROXY_ENV_VAR] ? [...CHROMIUM_ARGS, ...EGRESS_CHROMIUM_ARGS] : CHROMIUM_ARGS,
    chromiumSandbox: process.env[SANDBOX_ENV_VAR] === '1',
    // The runner's egress proxy, as the config sets it (egress-proxy.ts).
    ...(process.env[EGRESS_PROXY_ENV_VAR] ? { proxy: { server: process.env[EGRESS_PROXY_ENV_VAR] } } : {}),
    headless: true,
  };
}

/** The same launch, whatever the order of keys, Playwright Test's own per-worker keys aside. */
function sameLaunch(asked: LaunchOptions, prelaunched: LaunchOptions): boolean {
  const canonical = (options: LaunchOptions) =>
    JSON.stringify(
      Object.keys(options)
        .filter((key) => !PER_WORKER.has(key) && options[key] !== undefined)
        .sort()
        .map((key) => [key, options[key]]),
    );
  return canonical(asked) === canonical(prelaunched);
}

/**
 * Starts Chromium now when `CHROMIUM_PATH` names it (the executor resolves it for every run,
 * standby.ts hands it to standbys) and makes it the worker's first launch.
 */
export function prelaunchBrowser(playwright: NodeJS.Require): void {
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) return;
  let core: PlaywrightCore;
  try {
    core = playwright('playwright-core') as PlaywrightCore;
  } catch {
    return;
  }
  const expected = configuredLaunch(executablePath);
  const launchers = {
    chromium: core.chromium.launch.bind(core.chromium),
    firefox: core.firefox.launch.bind(core.firefox),
    webkit: core.webkit.launch.bind(core.webkit),
  };
  const launchedWith = browserEnv();
  // Playwright's own handlers end the browser and remove its profile when this process exits.
  let waiting: Promise<Browser | null> | undefined = launchers
    .chromium({ ...expected, handleSIGINT: false })
    .catch(() => null);

  const take = async (name: keyof typeof launchers, options: LaunchOptions = {}): Promise<Browser> => {
    const asked = { ...core._defaultLaunchOptions, ...options };
    const candidate = waiting;
    waiting = undefined;
    const browser = candidate ? await candidate : null;
    const same = name === 'chromium' && sameLaunch(asked, expected) && browserEnv() === launchedWith;
    if (browser?.isConnected() && same) {
      if (adopt(browser, asked, core.chromium)) return browser;
    }
    await browser?.close().catch(() => {});
    return launchers[name](options);
  };
  core.chromium.launch = (options) => take('chromium', options);
  core.firefox.launch = (options) => take('firefox', options);
  core.webkit.launch = (options) => take('webkit', options);
}

/**
 * Points the browser at the worker's folders, as launching with `asked` would have (Playwright
 * reads them when a context starts its trace, a video or a download), and records the options
 * on the client as `launch` does. False if Playwright's internals are not as expected.
 */
function adopt(browser: Browser, asked: LaunchOptions, browserType: BrowserType): boolean {
  const client = browser as Browser & ClientInternals;
  const server = client._connection?.toImpl?.(browser);
  if (!server?.options || !client._connectToBrowserType || !asked.artifactsDir) return false;
  server.options.artifactsDir = asked.artifactsDir;
  server.options.downloadsPath = asked.artifactsDir;
  server.options.tracesDir = asked.tracesDir ?? asked.artifactsDir;
  client._connectToBrowserType(browserType, asked, undefined);
  return true;
}
