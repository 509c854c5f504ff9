/**
 * Network mocks (`mockRoute`) and responses (`waitForResponse`) for the compiled tests, copied
 * beside `stepdeck-runtime.ts` into a project whose tests use them. Like the runtime, it imports
 * only `@playwright/test` and its siblings, so an exported project runs unmodified.
 */
import type { BrowserContext, Page, Response } from '@playwright/test';
import { expect } from '@playwright/test';
import { readJsonPath, type Stepdeck } from './stepdeck-runtime.ts';

/** A URL pattern is a regular expression when written `/source/flags`, else a Playwright glob. */
const REGEX_PATTERN = /^\/(.+)\/([dgimsuvy]*)$/s;

/** The pattern as Playwright's `route` takes it: a RegExp for `/…/flags`, else the glob string. */
export function urlPattern(pattern: string): string | RegExp {
  const match = REGEX_PATTERN.exec(pattern);
  if (!match?.[1]) return pattern;
  try {
    return new RegExp(match[1], match[2]);
  } catch (error) {
    throw new Error(`url ${pattern} is not a valid regular expression: ${(error as Error).message}`);
  }
}

export interface MockRouteOptions {
  url: string;
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string;
  abort?: boolean;
  times?: number;
}

/**
 * `mockRoute`: from now on, requests of every page of the test's context (popups too) whose URL
 * matches are answered here (or aborted) and never reach the network. Only http(s) requests
 * are answered; any other goes on as the page asked it (Chromium refuses `file:` itself).
 */
export async function mockRoute(page: Page, options: MockRouteOptions): Promise<void> {
  await page.context().route(
    urlPattern(options.url),
    async (route) => {
      if (!/^https?:/i.test(route.request().url())) return route.fallback();
      if (options.abort) return route.abort('failed');
      const answer = {
        status: options.status ?? 200,
        ...(options.headers ? { headers: options.headers } : {}),
      };
      if (options.json !== undefined) return route.fulfill({ ...answer, json: options.json });
      return route.fulfill({ ...answer, body: options.body ?? '' });
    },
    options.times === undefined ? undefined : { times: options.times },
  );
}

// Playwright's glob syntax (`route`, `waitForResponse`), ported from playwright-core so that a
// buffered response is matched exactly as `page.route` would match it.
const GLOB_ESCAPED = new Set(['$', '^', '+', '.', '*', '(', ')', '|', '\\', '?', '{', '}', '[', ']']);

function globToRegexSource(glob: string): string {
  const tokens = ['^'];
  let inGroup = false;
  for (let i = 0; i < glob.length; ++i) {
    const c = glob[i] as string;
    if (c === '\\' && i + 1 < glob.length) {
      const char = glob[++i] as string;
      tokens.push(GLOB_ESCAPED.has(char) ? `\\${char}` : char);
      continue;
    }
    if (c === '*') {
      const before = glob[i - 1];
      let stars = 1;
      while (glob[i + 1] === '*') {
        stars++;
        i++;
      }
      if (stars > 1 && glob[i + 1] === '/') {
        tokens.push(before === '/' ? '((.+/)|)' : '(.*/)');
        ++i;
      } else tokens.push(stars > 1 ? '(.*)' : '([^/]*)');
      continue;
    }
    if (c === '{') {
      if (inGroup) throw new Error(`invalid glob ${JSON.stringify(glob)}: nested '{' is not supported`);
      inGroup = true;
      tokens.push('(');
    } else if (c === '}') {
      if (!inGroup) throw new Error(`invalid glob ${JSON.stringify(glob)}: unmatched '}'`);
      inGroup = false;
      tokens.push(')');
    } else if (c === ',') tokens.push(inGroup ? '|' : '\\,');
    else tokens.push(GLOB_ESCAPED.has(c) ? `\\${c}` : c);
  }
  if (inGroup) throw new Error(`invalid glob ${JSON.stringify(glob)}: unmatched '{'`);
  tokens.push('$');
  return tokens.join('');
}

/** A relative glob is resolved against `baseURL`, its wildcard segments kept as written. */
function resolveGlob(glob: string, baseURL: string | undefined): string {
  if (glob.startsWith('*') || !baseURL || /^(about|data|chrome|edge|file):/.test(glob)) return glob;
  const kept = new Map<string, string>();
  const keep = (original: string, token: string) => {
    if (original === '') return '';
    kept.set(token, original);
    return token;
  };
  const relative = glob
    .split('/')
    .map((segment, index) => {
      if (segment === '.' || segment === '..' || segment === '') return segment;
      if (index === 0 && segment.endsWith(':'))
        return /[*{]/.test(segment) ? keep(segment, 'http:') : segment;
      if (!/[*?{}\\]/.test(segment)) return segment;
      const question = segment.indexOf('?');
      if (question === -1) return keep(segment, `$_${index}_$`);
      return (
        keep(segment.slice(0, question), `$_${index}_$`) + keep(segment.slice(question), `?$_${index}_$`)
      );
    })
    .join('/');
  let resolved: string;
  try {
    resolved = new URL(relative, baseURL).toString();
  } catch {
    return glob;
  }
  for (const [token, original] of kept) resolved = resolved.replace(token, () => original);
  return resolved;
}

/** Whether `url` matches a step's pattern as Playwright's `route` would match it. */
export function matchesUrlPattern(url: string, pattern: string, baseURL: string | undefined): boolean {
  const parsed = urlPattern(pattern);
  const regex =
    typeof parsed === 'string' ? new RegExp(globToRegexSource(resolveGlob(parsed, baseURL))) : parsed;
  regex.lastIndex = 0;
  return regex.test(url);
}

interface SeenResponse {
  url: string;
  method: string;
  status: number;
  at: number;
  response: Response;
}

/** How many responses the log keeps (the oldest go first); bodies are read only when matched. */
const LOG_LIMIT = 2_000;

/**
 * Every response of the test's browser context since the test started, in arrival order, for
 * `waitForResponse`: Playwright needs a wait started before the action that causes the request,
 * a step only starts after it, so the steps read this log instead.
 */
export class ResponseLog {
  private readonly seen: SeenResponse[] = [];
  /** Responses before this index were matched by an earlier `waitForResponse`. */
  private consumed = 0;
  private readonly listeners = new Set<() => void>();

  constructor(context: BrowserContext) {
    context.on('response', (response) => {
      this.seen.push({
        url: response.url(),
        method: response.request().method(),
        status: response.status(),
        at: Date.now(),
        response,
      });
      if (this.seen.length > LOG_LIMIT) {
        this.seen.shift();
        this.consumed = Math.max(0, this.consumed - 1);
      }
      for (const listener of this.listeners) listener();
    });
  }

  /**
   * The first response matching `matches` not matched before that arrived since `since` (ms),
   * waiting up to `timeout` ms for it; null when none came.
   */
  async next(
    matches: (entry: { url: string; method: string }) => boolean,
    since: number,
    timeout: number,
  ): Promise<SeenResponse | null> {
    const find = () => {
      for (let index = this.consumed; index < this.seen.length; index++) {
        const entry = this.seen[index] as SeenResponse;
        if (entry.at < since || !matches(entry)) continue;
        this.consumed = index + 1;
        return entry;
      }
      return null;
    };
    const found = find();
    if (found || timeout === 0) return found;
    return new Promise((resolve) => {
      const done = (entry: SeenResponse | null) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(entry);
      };
      const listener = () => {
        const entry = find();
        if (entry) done(entry);
      };
      const timer = setTimeout(() => done(find()), timeout);
      this.listeners.add(listener);
    });
  }

  /** The URLs of the last responses seen, newest last. */
  lastUrls(count: number): string[] {
    return this.seen.slice(-count).map((entry) => entry.url);
  }
}

/** Starts the log of the test's responses (compiled in when a test has a `waitForResponse`). */
export function recordResponses(page: Page): ResponseLog {
  return new ResponseLog(page.context());
}

export interface WaitForResponseOptions {
  url: string;
  method?: string;
  status?: number;
  jsonPath?: string;
  equals?: unknown;
  timeout?: number;
}

async function responseBody(response: Response): Promise<unknown> {
  let text: string;
  try {
    text = (await response.body()).toString('utf8');
  } catch {
    // A redirect has no body, nor a response whose body the browser no longer holds.
    return null;
  }
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `waitForResponse`: the next response whose URL matches that arrived during the previous step
 * or arrives during this one; its status and JSON path are then checked, and its body (parsed
 * JSON or text) goes to `variable`.
 */
export async function waitForResponse(
  sd: Stepdeck,
  log: ResponseLog,
  options: WaitForResponseOptions,
  variable?: string,
): Promise<void> {
  const baseURL = (sd.useOption('baseURL') as string | undefined) || undefined;
  const timeout = options.timeout ?? ((sd.useOption('actionTimeout') as number | undefined) || 10_000);
  urlPattern(options.url);
  const found = await log.next(
    (entry) =>
      (options.method === undefined || entry.method === options.method) &&
      matchesUrlPattern(entry.url, options.url, baseURL),
    sd.previousStepStart().getTime(),
    timeout,
  );
  if (!found) {
    const seen = log.lastUrls(5);
    throw new Error(
      `no response matching ${options.method ? `${options.method} ` : ''}${options.url} within ${timeout} ms; ${
        seen.length === 0 ? 'no response was seen' : `last URLs seen: ${seen.join(', ')}`
      }`,
    );
  }
  const described = `the response to ${found.url} (matching ${options.url})`;
  if (options.status !== undefined) expect(found.status, `status of ${described}`).toBe(options.status);
  const body = await responseBody(found.response);
  if (options.jsonPath !== undefined) {
    const value = readJsonPath(body, options.jsonPath);
    const what = `JSON at ${options.jsonPath} of ${described}`;
    if (options.equals === undefined) expect(value, `${what} should exist`).not.toBeUndefined();
    else expect(value, what).toEqual(options.equals);
  } else if (options.equals !== undefined) expect(body, `body of ${described}`).toEqual(options.equals);
  if (variable) sd.setVar(variable, body);
}
