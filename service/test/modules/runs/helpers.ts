import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  consoleCall,
  createTest as createTestThroughApi,
  login,
  multipart,
  type TestApp,
} from '../../helper.ts';

export { multipart };

/** Creates an active test through the real POST /v1/tests API; returns its id. */
export async function createTest(t: TestApp, testData: Record<string, unknown>): Promise<string> {
  return (await createTestThroughApi(t, { status: 'active', ...testData })).id;
}

export async function createTag(t: TestApp, name: string): Promise<string> {
  const response = await consoleCall(t.app, await t.consoleCookie(), {
    method: 'POST',
    url: '/console/v1/tags',
    payload: { name },
  });
  if (response.statusCode !== 201) throw new Error(`tag failed: ${response.body}`);
  return response.json().data.id as string;
}

export async function setCap(t: TestApp, concurrencyCap: number) {
  const response = await consoleCall(t.app, await t.consoleCookie(), {
    method: 'PUT',
    url: '/console/v1/organization/limits',
    payload: { concurrencyCap },
  });
  if (response.statusCode !== 200) throw new Error(`cap failed: ${response.body}`);
}

/** An API-only test (no browser): GET a URL and assert its status. */
export const apiTest = (name: string, url: string, status = 200, extra: Record<string, unknown> = {}) => ({
  name,
  metadata: { type: 'api' },
  steps: [
    { name: 'call', action: { name: 'request', method: 'GET', url } },
    { name: 'check', action: { name: 'assertStatus', value: status } },
  ],
  ...extra,
});

export async function runOf(t: TestApp, runId: string) {
  const response = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}` });
  if (response.statusCode !== 200)
    throw new Error(`run read failed: ${response.statusCode} ${response.body}`);
  return response.json().data as Record<string, unknown> & { status: string };
}

export async function waitForStatus(
  t: TestApp,
  runId: string,
  statuses: string[],
  timeoutMs = 90_000,
): Promise<Record<string, unknown> & { status: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await runOf(t, runId);
    if (statuses.includes(run.status)) return run;
    if (Date.now() > deadline)
      throw new Error(`run ${runId} stayed ${run.status}, wanted ${statuses.join('/')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts a run of an API test that calls the site once (at `/status?code=200&<marker>=1`)
 * and then waits two minutes; resolves once the site has seen that call, so the run is
 * surely executing.
 */
export async function startLongApiRun(t: TestApp, site: Site, marker: string): Promise<string> {
  const path = `/status?code=200&${marker}=1`;
  const testId = await createTest(t, {
    name: `long wait (${marker})`,
    metadata: { type: 'api' },
    steps: [
      { name: 'call', action: { name: 'request', method: 'GET', url: `${site.url}${path}` } },
      { name: 'wait', action: { name: 'wait', ms: 120000 } },
    ],
  });
  const response = await t.api({
    method: 'POST',
    url: `/v1/tests/${testId}/remote-run`,
    payload: { config: { timeout: 300000 } },
  });
  const runId = response.json().data.runId as string;
  await waitForStatus(t, runId, ['running']);
  const deadline = Date.now() + 60_000;
  while (!site.hits.get(path) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!site.hits.get(path)) throw new Error(`run ${runId} never called ${path}`);
  return runId;
}

export interface Site {
  url: string;
  hits: Map<string, number>;
  /** Request headers of the last request per path+query. */
  headers: Map<string, http.IncomingHttpHeaders>;
  inFlight: { now: number; max: number };
  close(): Promise<void>;
}

/**
 * Loopback pages and endpoints the tests visit. `/slow?ms=N` answers after N ms; `/basic`
 * challenges for HTTP Basic credentials, then serves the page.
 */
export async function startSite(): Promise<Site> {
  const hits = new Map<string, number>();
  const headers = new Map<string, http.IncomingHttpHeaders>();
  const inFlight = { now: 0, max: 0 };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const key = `${url.pathname}${url.search}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    headers.set(key, request.headers);
    inFlight.now += 1;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    const done = () => {
      inFlight.now -= 1;
    };
    if (url.pathname === '/slow') {
      setTimeout(
        () => {
          response.end('slow');
          done();
        },
        Number(url.searchParams.get('ms') ?? 1000),
      );
      return;
    }
    if (url.pathname === '/basic' && !request.headers.authorization) {
      // HTTP Basic: the browser sends its credentials only after this challenge.
      response.writeHead(401, { 'www-authenticate': 'Basic realm="stepdeck"' });
      response.end('who are you?');
      done();
      return;
    }
    if (url.pathname === '/status') {
      response.statusCode = Number(url.searchParams.get('code') ?? 200);
      response.end('status');
      done();
      return;
    }
    response.setHeader('content-type', 'text/html');
    response.end(`<!doctype html><html><head><title>Stepdeck page</title></head><body>
<h1 id="title">Hello runs</h1>
<p id="size"></p>
<input id="field">
<script>document.getElementById('size').textContent = window.innerWidth + 'x' + window.innerHeight;</script>
</body></html>`);
    done();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    headers,
    inFlight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The attacker of the security tests: a second organization's CI key, scoped as the action's. */
export async function attackerCiKey(t: TestApp): Promise<{ 'x-api-key': string; 'x-project-id': string }> {
  const admin = await t.consoleCookie();
  const org = await consoleCall(t.app, admin, {
    method: 'POST',
    url: '/console/v1/organizations',
    payload: { name: 'Attackers', ownerEmail: 'owner@attack.example', ownerPassword: 'attack-password' },
  });
  if (org.statusCode !== 201) throw new Error(`creating the attackers' organization: ${org.body}`);
  const owner = await login(t.app, 'owner@attack.example', 'attack-password');
  const key = await consoleCall(t.app, owner, {
    method: 'POST',
    url: '/console/v1/api-keys',
    payload: { name: 'ci', scopes: ['tests:read', 'tests:create', 'tests:run', 'testRuns:read'] },
  });
  if (key.statusCode !== 201) throw new Error(`creating the attackers' CI key: ${key.body}`);
  return { 'x-api-key': key.json().data.key, 'x-project-id': org.json().data.projectId };
}
