/**
 * Run-time support copied verbatim into every compiled Playwright project as
 * `stepdeck-runtime.ts`. It must only import `@playwright/test`, `node:` modules and its siblings
 * `stepdeck-email.ts` (the inbox polling), `stepdeck-page.ts` (page scripts, history,
 * patterns), `stepdeck-tabs.ts` (tabs, popups, frames), `stepdeck-heal.ts` and
 * `stepdeck-suggest.ts` (locator suggestions at a failure),
 * copied beside it, so the exported project runs unmodified with `npx playwright test`.
 *
 * It owns what is the same for every step: step conditions (skip, alwaysRun, if), failure
 * bookkeeping, `{{vars.X}}` / `{{parameters.X}}` / `{{env.X}}` / `{{secrets.X}}` templating, API
 * responses, JSON paths and the email-inbox polling. Secrets are read from
 * `STEPDECK_SECRET_<NAME>`, the run's environment variables from `STEPDECK_ENV_<NAME>`.
 */
import net from 'node:net';
import path from 'node:path';
import {
  type BrowserContext,
  type Locator,
  type Page,
  type Request,
  type TestInfo,
  test,
} from '@playwright/test';
import { type EmailRecord, pollInbox, type WaitForEmailOptions } from './stepdeck-email.ts';
import { diagnoseLocator, type HealMode } from './stepdeck-heal.ts';
import { containingPatterns, evaluateInPage, traverseHistory, userPattern } from './stepdeck-page.ts';
import { retryChoice } from './stepdeck-suggest.ts';
import {
  closeTab,
  frameScope,
  type PopupTrigger,
  switchTab,
  type TabQuery,
  waitForPopup,
} from './stepdeck-tabs.ts';

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

export type { EmailRecord, WaitForEmailOptions } from './stepdeck-email.ts';

/** The environment variable holding a project secret at run time. */
export function secretEnvVar(name: string): string {
  return `STEPDECK_SECRET_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The environment variable holding a variable of the run's environment (`{{env.NAME}}`). */
export function environmentEnvVar(name: string): string {
  return `STEPDECK_ENV_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
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

/** Result annotation with a failed assertion's expected and received values (JSON text). */
export const EXPECTATION_ANNOTATION = 'stepdeck-expectation';
/** Result annotation with each `assertScreenshot`'s outcome (JSON), read by the service. */
export const VISUAL_ANNOTATION = 'stepdeck-visual';
/** Result annotation with a failing locator's suggestions and, healed, the one used (JSON). */
export const HEAL_ANNOTATION = 'stepdeck-heal';
const EXPECTATION_MAX_CHARS = 2_000;

const TEMPLATE = /\{\{\s*(vars|parameters|data|env|secrets)\.([^}\s]+)\s*\}\}/g;

function lookup(root: unknown, dotted: string): unknown {
  let current: unknown = root;
  for (const key of dotted.split('.')) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function sameValue(actual: unknown, expected: unknown): boolean {
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
 * Every URL whose scheme a page may not load from: anything but http(s), ws(s), `data:`,
 * `blob:` and `about:` (so `file:`, `chrome:`, `view-source:`… are blocked). A regular
 * expression rather than a function, so that Playwright matches it in its server and lets
 * every other request through there: a function would bring each of a page's requests to the
 * test's side and back (measured: two loads of a page of 80 resources 280–301 against
 * 292–334 ms, docs/orchestrated-runs.md).
 */
const UNLOADABLE_URL = /^(?!(?:https?|wss?|data|blob|about):)/i;

/**
 * The absolute URL Playwright will open for `url` (resolved against `baseURL`, `localhost:…`
 * completed to http), refused unless it is http or https (or `about:blank` for navigation):
 * a test must never read the machine it runs on through `file:` and friends.
 */
export function webTarget(url: string, baseURL: string | undefined, what: 'goto' | 'request'): string {
  let resolved = url;
  try {
    resolved = new URL(url, baseURL).toString();
  } catch {
    // Playwright passes what it cannot resolve on as given; so do we, to refuse it below.
  }
  if (resolved.startsWith('localhost') || resolved.startsWith('127.0.0.1')) resolved = `http://${resolved}`;
  let parsed: URL;
  try {
    parsed = new URL(resolved);
  } catch {
    throw new Error(`${what}: "${url}" is not an absolute URL and no baseURL is set to resolve it against`);
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.toString();
  if (what === 'goto' && parsed.href === 'about:blank') return parsed.href;
  throw new Error(
    `${what}: only http and https URLs may be opened; "${parsed.protocol}" is not allowed (${url})`,
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The Stepdeck service's egress proxy, which its runs' browser and `request` steps go through
 * (the config reads the same variable): unset, as in an exported project, there is none. Its
 * answers carry these headers (runner/egress-proxy.ts in the service names the same): a
 * refusal by the runner's egress rules (403), or the network error of a target it could not
 * reach (502), which the steps below turn into the failure the user would see without it.
 */
const EGRESS_PROXY_ENV = 'STEPDECK_EGRESS_PROXY';
const EGRESS_BLOCKED_HEADER = 'x-stepdeck-egress-blocked';
const EGRESS_ERROR_HEADER = 'x-stepdeck-egress-error';
/** Node's network error codes as Chromium names them (what `page.goto` says without a proxy). */
const CHROMIUM_NET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'ERR_CONNECTION_REFUSED',
  ECONNRESET: 'ERR_CONNECTION_RESET',
  ETIMEDOUT: 'ERR_CONNECTION_TIMED_OUT',
  EHOSTUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ENOTFOUND: 'ERR_NAME_NOT_RESOLVED',
  EAI_AGAIN: 'ERR_NAME_NOT_RESOLVED',
};

type EgressAnswer = { blocked: string } | { code: string; message: string };

function egressProxy(): string | undefined {
  return process.env[EGRESS_PROXY_ENV] || undefined;
}

/** The egress proxy's refusal or network error in a response's headers; undefined otherwise. */
export function egressAnswer(headers: Record<string, string>): EgressAnswer | undefined {
  if (!egressProxy()) return undefined;
  const blocked = headers[EGRESS_BLOCKED_HEADER];
  if (blocked) return { blocked };
  const error = headers[EGRESS_ERROR_HEADER];
  if (!error) return undefined;
  const space = error.indexOf(' ');
  return space < 0
    ? { code: error, message: error }
    : { code: error.slice(0, space), message: error.slice(space + 1) };
}

/**
 * Asks the egress proxy what it answers for `url`'s host and port (a CONNECT, closed at once):
 * Chromium reports a refused tunnel only as ERR_TUNNEL_CONNECTION_FAILED.
 */
function askEgressProxy(url: string): Promise<EgressAnswer | undefined> {
  const proxy = egressProxy();
  if (!proxy) return Promise.resolve(undefined);
  const target = new URL(url);
  const port = target.port || (target.protocol === 'https:' || target.protocol === 'wss:' ? '443' : '80');
  const server = new URL(proxy);
  return new Promise((resolve) => {
    const socket = net.connect({ host: server.hostname, port: Number(server.port || 80) });
    let received = '';
    const done = (answer?: EgressAnswer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(10_000, () => done());
    socket.on('error', () => done());
    socket.on('end', () => done());
    socket.on('connect', () =>
      socket.write(`CONNECT ${target.hostname}:${port} HTTP/1.1\r\nHost: ${target.hostname}:${port}\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      for (const line of received.slice(0, end).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      done(egressAnswer(headers));
    });
  });
}

/** What a navigation the egress proxy answered fails with. */
function gotoEgressError(target: string, reached: string, answer: EgressAnswer): Error {
  if ('blocked' in answer) {
    const redirected = reached === target ? '' : ` redirected to ${reached},`;
    return new Error(`goto ${target}:${redirected} ${answer.blocked}`);
  }
  return new Error(`page.goto: net::${CHROMIUM_NET_ERRORS[answer.code] ?? 'ERR_FAILED'} at ${target}`);
}

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
  /** A non-http(s) load the browser context blocked; fails the step it happened in. */
  private blockedLoad: string | undefined;
  private currentStepStartedAt = new Date();
  /** The test's browser context (browser tests): its pages are the ones Playwright screenshots. */
  private context: BrowserContext | undefined;
  /** `heal`: what a step whose locator finds nothing (or several) gets: suggestions, a retry. */
  private readonly heal: HealMode;
  /** The locators the running step made: the selector as written and as it ran. */
  private located: Array<{ page: Page; selector: string; resolved: string }> = [];
  /** While `heal: retry` runs a step again: its selector → the suggestion used instead. */
  private readonly replacements = new Map<string, string>();
  /** The `<iframe>`s (outer first) the running step's selectors are looked up in (`frame`). */
  private frames: string[] = [];

  constructor(
    testInfo: TestInfo,
    init: {
      vars?: Record<string, unknown> | null;
      parameters?: Record<string, unknown> | null;
      data?: Record<string, string> | null;
      inboxApiUrl?: string;
      heal?: HealMode;
    },
  ) {
    this.testInfo = testInfo;
    this.heal = init.heal ?? 'suggest';
    this.vars = { ...(init.vars ?? {}) };
    this.parameters = { ...(init.parameters ?? {}) };
    this.data = { ...(init.data ?? {}) };
    this.inboxApiUrl = init.inboxApiUrl;
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
        this.frames = [];
        await this.healing(stepId, inner, body);
        this.assertNoBlockedLoad();
        // A failed child fails its group too (the same error object, so one location).
        if (inner.failed) throw this.error;
      });
    } catch (error) {
      this.blockedLoad = undefined;
      scope.failed = true;
      if (!this.failedAny) {
        this.failedAny = true;
        this.error = error;
        this.recordExpectation(error);
      }
    }
  }

  /**
   * Runs a step's body; when it fails because its locator found nothing (or several elements),
   * records the page's closest elements (`stepdeck-heal.ts`) and, with `heal: retry`, runs the
   * body once more with the best of them: the step then passes, recorded as healed.
   */
  private async healing(
    stepId: string | undefined,
    inner: StepScope,
    body: (scope: StepScope) => Promise<void>,
  ): Promise<void> {
    const outer = this.located;
    this.located = [];
    try {
      await body(inner);
    } catch (error) {
      const message = error instanceof Error ? error.message : '';
      // The locator the error names (a drag has two), else the step's first.
      const used = this.located.find((entry) => message.includes(entry.resolved)) ?? this.located[0];
      if (this.heal === 'off' || stepId === undefined || !used) throw error;
      const record = await diagnoseLocator(
        used.page,
        { stepId, selector: used.selector, resolved: used.resolved },
        error,
      );
      if (!record) throw error;
      const choice = this.heal === 'retry' ? retryChoice(record.suggestions) : null;
      if (choice) {
        this.replacements.set(used.selector, choice.selector);
        try {
          inner.failed = false;
          await body(inner);
          record.healed = { selector: choice.selector, locator: choice.locator };
        } catch {
          // The suggestion did not do it either: the step fails with its own error.
        } finally {
          this.replacements.delete(used.selector);
        }
      }
      this.testInfo.annotations.push({ type: HEAL_ANNOTATION, description: JSON.stringify(record) });
      if (!record.healed) throw error;
    } finally {
      this.located = outer;
    }
  }

  /**
   * `page.locator()` for a step's selector (templates resolved), noted so a failure can be
   * diagnosed; while a healed step runs again, the suggestion stands in for it.
   */
  locator(page: Page, selector: string): Locator {
    const resolved = this.replacements.get(selector) ?? this.t(selector);
    // Suggestions read the page's own elements, not a frame's: a step in a frame gets none.
    if (this.frames.length === 0) this.located.push({ page, selector, resolved });
    return frameScope(page, this.frames).locator(resolved);
  }

  /** The running step's `frame` option: its selectors are looked up inside these `<iframe>`s. */
  frame(frames: string | string[]): void {
    this.frames = (Array.isArray(frames) ? frames : [frames]).map((frame) => this.t(frame));
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
    const value = (this.testInfo.project.use as { actionTimeout?: unknown }).actionTimeout;
    return typeof value === 'number' && value > 0 ? value : 10_000;
  }

  /**
   * Keeps an assertion's expected and received values (Playwright's `matcherResult`, which its
   * reports drop) as a result annotation, so a report can show them without parsing messages.
   */
  private recordExpectation(error: unknown): void {
    const result = (error as { matcherResult?: { expected?: unknown; actual?: unknown } } | null)
      ?.matcherResult;
    if (!result || typeof result !== 'object') return;
    const show = (value: unknown): string | null => {
      if (value === undefined || typeof value === 'function') return null;
      let text: string | undefined;
      try {
        // Patterns (regex values, `assertTexts` without `exact`) read as written: `/Buy milk/`.
        text = JSON.stringify(value, (_key, item) => (item instanceof RegExp ? String(item) : item));
      } catch {
        text = String(value);
      }
      if (text === undefined) return null;
      return text.length > EXPECTATION_MAX_CHARS ? `${text.slice(0, EXPECTATION_MAX_CHARS)}…` : text;
    };
    const expected = show(result.expected);
    const received = show(result.actual);
    if (expected === null && received === null) return;
    this.testInfo.annotations.push({
      type: EXPECTATION_ANNOTATION,
      description: JSON.stringify({ expected, received }),
    });
  }

  /** Ends the test: the first failure (if any) fails it. */
  finish(): void {
    if (this.failedAny) throw this.error;
    this.skipDiscardedScreenshots();
  }

  /**
   * With `screenshot: 'only-on-failure'`, Playwright screenshots every page as its context
   * closes, in case the test fails after its body, and throws the picture away when it passed.
   * Nothing after a compiled test's body can fail it, so for a passing test that picture is
   * wasted: about 100 ms of CPU at the default 1920×1080 viewport, a quarter of what a short
   * test costs (docs/orchestrated-runs.md). Marking the pages as captured, as Playwright marks
   * them itself after a capture, skips it. The mark is Playwright's own per-test symbol, which
   * is not public: should it change, the picture is simply taken again. A failing test never
   * gets here (`finish()` throws first) and keeps the screenshot Playwright takes after its body.
   */
  private skipDiscardedScreenshots(): void {
    const setting = this.testInfo.project.use.screenshot;
    const mode = typeof setting === 'object' ? setting.mode : setting;
    const captured = (this.testInfo as unknown as { _uniqueSymbol?: unknown })._uniqueSymbol;
    // A soft assertion that failed has failed the test without throwing.
    if (mode !== 'only-on-failure' || typeof captured !== 'symbol' || this.testInfo.errors.length > 0) return;
    // The test's own context holds all its pages (popups included): compiled tests open no other.
    for (const page of this.context?.pages() ?? [])
      (page as unknown as Record<symbol, boolean>)[captured] = true;
  }

  /** Resolves `{{vars.X}}`, `{{parameters.X}}`, `{{data.X}}`, `{{env.X}}` and `{{secrets.X}}` in a string. */
  t(template: string): string {
    return template.replace(TEMPLATE, (_match, kind: string, name: string) => {
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
        const cell = Object.hasOwn(this.data, name) ? this.data[name] : undefined;
        if (cell === undefined)
          throw new Error(`{{data.${name}}} is not defined: the test's data set has no column "${name}"`);
        return cell;
      }
      const value = lookup(kind === 'vars' ? this.vars : this.parameters, name);
      if (value === undefined) throw new Error(`{{${kind}.${name}}} is not defined`);
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  }

  /**
   * Blocks every load of the page's browser context that is not http(s) (a link, a script or a
   * redirect to `file:` included); the step during which it happened fails.
   */
  async guard(page: Page): Promise<void> {
    this.context = page.context();
    await this.context.route(UNLOADABLE_URL, async (route) => {
      this.blockedLoad ??= route.request().url();
      await route.abort('blockedbyclient');
    });
  }

  /** Throws (once) when the context blocked a load since the last check. */
  assertNoBlockedLoad(): void {
    const blocked = this.blockedLoad;
    if (blocked === undefined) return;
    this.blockedLoad = undefined;
    throw new Error(
      `the page tried to open "${blocked}": only http and https URLs may be opened, so it was blocked`,
    );
  }

  /**
   * `goto` after templating: refuses anything but http(s) once resolved against baseURL. Through
   * the egress proxy, a navigation it refused (the URL, or a redirect on the way) fails with the
   * rule, and one it could not complete with the error Chromium would have given.
   */
  async goto(page: Page, url: string): Promise<void> {
    const target = webTarget(url, this.baseURL(), 'goto');
    const proxied = egressProxy() !== undefined;
    let tunnelFailed: string | undefined;
    const onFailed = (request: Request) => {
      if (
        request.isNavigationRequest() &&
        request.failure()?.errorText.includes('ERR_TUNNEL_CONNECTION_FAILED')
      )
        tunnelFailed = request.url();
    };
    if (proxied) page.on('requestfailed', onFailed);
    let response: Awaited<ReturnType<Page['goto']>>;
    try {
      response = await page.goto(target);
    } catch (error) {
      this.assertNoBlockedLoad();
      const answer = tunnelFailed ? await askEgressProxy(tunnelFailed) : undefined;
      if (answer && tunnelFailed) throw gotoEgressError(target, tunnelFailed, answer);
      throw error;
    } finally {
      if (proxied) page.off('requestfailed', onFailed);
    }
    const answer = response && egressAnswer(response.headers());
    if (response && answer) throw gotoEgressError(target, response.url(), answer);
  }

  /** A `request` step's URL after templating, refused unless http(s) once resolved. */
  requestUrl(url: string): string {
    return webTarget(url, this.baseURL(), 'request');
  }

  private baseURL(): string | undefined {
    const value = (this.testInfo.project.use as { baseURL?: unknown }).baseURL;
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  /** Templating applied to every string inside a JSON value (request bodies, expected values). */
  tv<T>(value: T): T {
    if (typeof value === 'string') return this.t(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.tv(item)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.tv(item)])) as T;
    }
    return value;
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
    // The egress proxy's answer (the request, or a redirect on the way): the error the step fails with.
    const answer = egressAnswer(response.headers());
    if (answer && 'blocked' in answer)
      throw new Error(`request ${response.url?.() ?? ''}: ${answer.blocked}`);
    if (answer) throw new Error(`apiRequestContext.fetch: ${answer.message}`);
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

  /**
   * Polls the service's inbox API until a matching message arrives. Messages count from the
   * start of the step before this one, so a mail triggered by the preceding click is not missed.
   */
  async waitForEmail(options: WaitForEmailOptions): Promise<EmailRecord> {
    const baseUrl = (process.env.STEPDECK_API_URL || this.inboxApiUrl || '').replace(/\/+$/, '');
    if (!baseUrl) throw new Error('waitForEmail needs STEPDECK_API_URL (the Stepdeck service URL)');
    const apiKey = process.env.STEPDECK_API_KEY;
    if (!apiKey) throw new Error('waitForEmail needs STEPDECK_API_KEY (an API key with emailInbox:read)');
    const inbox = this.t(options.inbox);
    const subjectContains = options.subjectContains
      ? this.t(options.subjectContains).toLowerCase()
      : undefined;
    const from = options.from ? this.t(options.from).toLowerCase() : undefined;
    const timeoutMs = options.timeoutMs ?? 30_000;
    const since = this.previousStepStartedAt.toISOString();
    return pollInbox({
      baseUrl,
      apiKey,
      inbox,
      subjectContains,
      from,
      timeoutMs,
      since,
      subjectFilter: options.subjectContains,
    });
  }

  /** The first URL of an email stored by `waitForEmail` that contains `contains`. */
  emailLink(variable: string, contains?: string): string {
    const email = this.vars[variable] as Partial<EmailRecord> | undefined;
    if (!email || !Array.isArray(email.urls)) {
      throw new Error(`gotoEmailLink: vars.${variable} holds no email (run waitForEmail first)`);
    }
    const needle = contains ? this.t(contains) : undefined;
    const url = email.urls.find((candidate) => !needle || candidate.includes(needle));
    if (!url) {
      throw new Error(
        `gotoEmailLink: no link${needle ? ` containing "${needle}"` : ''} in the email "${email.subject ?? ''}"`,
      );
    }
    return url;
  }
}
