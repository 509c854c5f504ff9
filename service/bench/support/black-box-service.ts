/**
 * The service as a user starts and drives it, for bench/black-box.ts: `node service/src/server.ts`
 * as a child process on a fresh DATA_DIR with the defaults (only the ports and `RUNNER_SLOTS`
 * set), the first-start credentials read from its output as a reader copies them, then only
 * HTTP: the admin signs in to the console API and makes an API key, and every test, run and
 * export goes through `/v1` with that key. Nothing of the service is imported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const terminal = new Set(['completed', 'failed', 'cancelled']);
/** How often a run's status is asked: 4 a second stays under the default 300 requests a minute. */
export const pollMs = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Settings a shell may carry that would tune the install (or point it at PostgreSQL): left out,
 * so the child gets the defaults a fresh `npm start` gets.
 */
const tuning = /^(RUNNER_|DATABASE_URL$|RATE_LIMIT_PER_MINUTE$|LOG_LEVEL$|ADMIN_PASSWORD$|PUBLIC_URL$|HOST$)/;

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunOutcome {
  runId: string;
  status: string;
  /** Trigger accepted → the poll that saw the run terminal, as the client lived it. */
  wallMs: number;
  /** The run's own `createdAt` → `completedAt` (what polling adds is the difference). */
  serverMs: number;
  /** Batches the run was split into (1 when unsplit) and the planner's reason. */
  batches: number;
  plan: string;
  /** The tests' own durations from the run's report, summed, and how many. */
  testsMs: number;
  tests: number;
}

export interface Install {
  slots: number;
  /** The organization's concurrency cap as the console API reports it. */
  orgCap: number;
  createTest(name: string, steps: unknown[]): Promise<string>;
  /** `POST /v1/tests/remote-run` with the ids, then `GET /v1/test-runs/:runId` until it ends. */
  run(testIds: string[]): Promise<RunOutcome>;
  /** The tests as a Playwright project (`POST /v1/tests/export`, `format: "pw"`): its zip. */
  exportProject(testIds: string[]): Promise<Buffer>;
  /** Requests the rate limit refused (each waited out and retried). */
  rateLimited(): number;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts a fresh install with `RUNNER_SLOTS=slots` and signs in as its first start says. */
export async function startInstall(slots: number): Promise<Install> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-black-box-'));
  const port = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !tuning.test(name)));
  let output = '';
  const child = spawn(process.execPath, ['service/src/server.ts'], {
    cwd: root,
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      // Another service on this machine may hold the default 2525; which port takes mail is no tuning.
      SMTP_PORT: '0',
      RUNNER_SLOTS: String(slots),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-50_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const fail = async (message: string): Promise<never> => {
    await stop();
    throw new Error(`${message}\n${output.slice(-5_000)}`);
  };

  // The block the first start prints once its listeners are up ("Keep these").
  const firstStart = /project\s+(\S+) .*\n\s+API key\s+\S+\n\s+console\s+(\S+) \/ (\S+)\n/;
  const deadline = Date.now() + 120_000;
  let printed = firstStart.exec(output);
  while (!printed) {
    if (child.exitCode !== null || Date.now() > deadline) return fail('the service did not start');
    await sleep(100);
    printed = firstStart.exec(output);
  }
  const [, projectId = '', email = '', password = ''] = printed;

  // The admin signs in and makes a key for this client, as under Administration → API keys.
  const consoleHeaders = { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' };
  const session = await fetch(`${url}/console/v1/session`, {
    method: 'POST',
    headers: consoleHeaders,
    body: JSON.stringify({ email, password }),
  });
  const cookie = session.headers.get('set-cookie')?.split(';')[0];
  if (session.status !== 200 || !cookie) return fail(`sign-in: ${session.status} ${await session.text()}`);
  const created = await fetch(`${url}/console/v1/api-keys`, {
    method: 'POST',
    headers: { ...consoleHeaders, cookie },
    body: JSON.stringify({
      name: 'black-box bench',
      scopes: ['tests:read', 'tests:create', 'tests:run', 'testRuns:read'],
    }),
  });
  if (created.status !== 201) return fail(`API key: ${created.status} ${await created.text()}`);
  const apiKey = ((await created.json()) as { data: { key: string } }).data.key;
  const organization = await fetch(`${url}/console/v1/organization`, { headers: { cookie } });
  const orgCap = ((await organization.json()) as { data: { concurrencyCap: number } }).data.concurrencyCap;

  let rateLimited = 0;
  const headers = { 'x-api-key': apiKey, 'x-project-id': projectId };
  /** One `/v1` request; a 429 of the rate limit is waited out (`Retry-After`) and retried. */
  const api = async (method: 'GET' | 'POST', pathname: string, body?: FormData | object) => {
    for (;;) {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers:
          body && !(body instanceof FormData) ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      if (response.status === 429 && bytes.toString().includes('RATE_LIMITED')) {
        rateLimited += 1;
        await sleep(1000 * Number(response.headers.get('retry-after') ?? 1));
        continue;
      }
      return { status: response.status, bytes, retryAfter: response.headers.get('retry-after') };
    }
  };
  // biome-ignore lint/suspicious/noExplicitAny: reads the API's documented JSON, checked by status
  const json = (bytes: Buffer): any => JSON.parse(bytes.toString());

  return {
    slots,
    orgCap,
    rateLimited: () => rateLimited,
    stop,
    async createTest(name, steps) {
      const form = new FormData();
      form.append('testData', JSON.stringify({ status: 'active', name, steps }));
      const response = await api('POST', '/v1/tests', form);
      if (response.status !== 200) throw new Error(`create ${name}: ${response.status} ${response.bytes}`);
      return json(response.bytes).data.id as string;
    },
    async exportProject(testIds) {
      const response = await api('POST', '/v1/tests/export', { testIds, format: 'pw' });
      if (response.status !== 200) throw new Error(`export: ${response.status} ${response.bytes}`);
      return response.bytes;
    },
    async run(testIds) {
      // The bulk cooldown between runs (429, Retry-After) is waited out as a client does; the
      // wall starts with the trigger the service accepted.
      let started: number;
      let response: Awaited<ReturnType<typeof api>>;
      for (;;) {
        started = performance.now();
        response = await api('POST', '/v1/tests/remote-run', { testIds });
        if (response.status !== 429) break;
        await sleep(Math.max(200, 1000 * Number(response.retryAfter ?? 1)));
      }
      if (response.status !== 200) throw new Error(`remote-run: ${response.status} ${response.bytes}`);
      const runId = json(response.bytes).data.runId as string;
      let detail: {
        status: string;
        createdAt: string;
        completedAt: string | null;
        batches?: unknown[];
        metadata?: { plan?: { reason?: string } };
        report?: { runTypeInfo?: { runnerError?: string; testResults?: { duration: number }[] } };
      };
      for (;;) {
        await sleep(pollMs);
        const polled = await api('GET', `/v1/test-runs/${runId}`);
        if (polled.status !== 200) throw new Error(`run ${runId}: ${polled.status} ${polled.bytes}`);
        detail = json(polled.bytes).data;
        if (terminal.has(detail.status)) break;
      }
      const wallMs = performance.now() - started;
      if (detail.status !== 'completed')
        throw new Error(`run ${runId} ${detail.status}: ${detail.report?.runTypeInfo?.runnerError ?? ''}`);
      const results = detail.report?.runTypeInfo?.testResults ?? [];
      return {
        runId,
        status: detail.status,
        wallMs,
        serverMs: Date.parse(detail.completedAt ?? '') - Date.parse(detail.createdAt),
        batches: detail.batches?.length || 1,
        plan: detail.metadata?.plan?.reason ?? '',
        testsMs: results.reduce((sum, result) => sum + result.duration, 0),
        tests: results.length,
      };
    },
  };
}
