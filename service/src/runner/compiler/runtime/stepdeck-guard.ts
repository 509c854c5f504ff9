/**
 * Where a compiled test may go, for `stepdeck-runtime.ts`, copied beside it into every
 * compiled project: only http(s) targets for `goto` and `request` steps, and the Stepdeck
 * service's egress proxy's refusals and network errors turned into the failure the user would
 * see without the proxy. A test must never read the machine it runs on through `file:` and
 * friends: the steps' own loads (the only ones the browser starts itself) are checked here,
 * and Chromium refuses a web page's loads of `file:`, `chrome:` and `view-source:` URLs itself
 * (links, frames, fetches, redirects: `sandbox.test.ts` tries each). The context routes
 * nothing for this: a route makes every request of the page stop in Playwright's server and
 * turns the HTTP cache off. It imports only `@playwright/test` and `node:` modules.
 */
import net from 'node:net';
import type { Page, Request } from '@playwright/test';

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

/**
 * The Stepdeck service's egress proxy, which its runs' browser and `request` steps go through
 * (the config reads the same variable): unset, as in an exported project, there is none. Its
 * answers carry these headers (runner/egress-proxy.ts in the service names the same): a
 * refusal by the runner's egress rules (403), or the network error of a target it could not
 * reach (502), which the steps turn into the failure the user would see without it.
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

/**
 * Navigates to an already checked `target`. Through the egress proxy, a navigation it refused
 * (the URL, or a redirect on the way) fails with the rule, and one it could not complete with
 * the error Chromium would have given; a load the guard blocked fails as such.
 */
export async function gotoThroughEgress(page: Page, target: string): Promise<void> {
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
    const answer = tunnelFailed ? await askEgressProxy(tunnelFailed) : undefined;
    if (answer && tunnelFailed) throw gotoEgressError(target, tunnelFailed, answer);
    throw error;
  } finally {
    if (proxied) page.off('requestfailed', onFailed);
  }
  const answer = response && egressAnswer(response.headers());
  if (response && answer) throw gotoEgressError(target, response.url(), answer);
}

/**
 * Fails a `request` step the egress proxy answered (the request, or a redirect on the way)
 * with its rule or the network error, as the request would fail without the proxy.
 */
export function assertRequestPassed(response: { headers(): Record<string, string>; url?(): string }): void {
  const answer = egressAnswer(response.headers());
  if (answer && 'blocked' in answer) throw new Error(`request ${response.url?.() ?? ''}: ${answer.blocked}`);
  if (answer) throw new Error(`apiRequestContext.fetch: ${answer.message}`);
}
