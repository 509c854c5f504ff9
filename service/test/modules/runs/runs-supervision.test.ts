import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, createTestApp } from '../../helper.ts';
import { type Site, startSite } from './helpers.ts';
import {
  alive,
  descendantsOf,
  isRunWorker,
  type ProcessInfo,
  serverFile,
  startProcess,
  until,
  workerFile,
} from './service-process.ts';

async function killHard(child: ChildProcess, exited: Promise<void>) {
  child.kill('SIGKILL');
  await exited;
}

const uiWaitTest = (site: Site, marker: string) => ({
  status: 'active',
  name: `ui wait (${marker})`,
  steps: [
    { name: 'open', action: { name: 'goto', url: `${site.url}/page?${marker}=1` } },
    { name: 'wait', action: { name: 'wait', ms: 120000 } },
  ],
});

async function api(base: string, headers: Record<string, string>, url: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${url}`, { ...init, headers: { ...headers, ...init.headers } });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** Creates a browser test that stays on a page for two minutes and starts it; resolves once the page was visited. */
async function startLongBrowserRun(
  base: string,
  headers: Record<string, string>,
  site: Site,
  marker: string,
) {
  const form = new FormData();
  form.append('testData', JSON.stringify(uiWaitTest(site, marker)));
  const testId = (await api(base, headers, '/v1/tests', { method: 'POST', body: form })).data.id as string;
  const runId = (
    await api(base, headers, `/v1/tests/${testId}/remote-run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config: { timeout: 300000 } }),
    })
  ).data.runId as string;
  await until(() => site.hits.get(`/page?${marker}=1`), 90_000, 'the browser to open the page');
  return runId;
}

/** The run's processes under `parent` (Chromium among them) and its temporary folder. */
function runTree(parent: number) {
  const tree = descendantsOf(parent);
  expect(tree.some((info) => /chrom/i.test(info.args))).toBe(true);
  // Playwright's worker works in the run's project folder (standby runners wait elsewhere).
  const worker = tree.find(isRunWorker);
  const project = fs.readlinkSync(`/proc/${(worker as ProcessInfo).pid}/cwd`);
  const workDir = path.dirname(project);
  expect(path.basename(workDir)).toMatch(/^stepdeck-run-/);
  expect(fs.existsSync(workDir)).toBe(true);
  return { tree, workDir };
}

async function expectGone(tree: ProcessInfo[], workDir: string) {
  await until(
    () => (tree.every((info) => !alive(info)) ? true : undefined),
    5_000,
    'the run processes to end',
  );
  await until(() => (!fs.existsSync(workDir) ? true : undefined), 5_000, 'the run folder to be removed');
}

describe.each(['sqlite', 'postgres'] as const)('kill -9 of the service mid-run (%s)', (kind) => {
  let site: Site;
  let dataDir: string;
  let drop: (() => Promise<void>) | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    site = await startSite();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-supervision-'));
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await site?.close();
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no process of the run alive and no folder once restarted; the run is failed', async () => {
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      // Any free port, read from each start's log (service-process.ts).
      PORT: '0',
      SMTP_PORT: '0',
      ADMIN_PASSWORD: 'admin-password',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    if (kind === 'postgres') {
      const created = await createPostgresDatabase();
      drop = created.drop;
      env.DATABASE_URL = created.url;
      // With PostgreSQL a restarted service judges runs by heartbeat (other workers may hold them).
      env.RUNNER_STALE_HEARTBEAT_MS = '3000';
    }
    const first = await startProcess(serverFile, env, /written to /);
    children.push(first.child);
    let base = first.listeningAt();
    const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
    const runId = await startLongBrowserRun(base, headers, site, `kill-${kind}`);
    const { tree, workDir } = runTree(first.child.pid as number);

    await killHard(first.child, first.exited);
    // The supervisor saw its parent's pipe close: the browser does not outlive the service.
    await until(
      () => (tree.every((info) => !alive(info)) ? true : undefined),
      5_000,
      'the run processes to end',
    );

    const second = await startProcess(serverFile, env, /Server listening at/);
    children.push(second.child);
    base = second.listeningAt();
    await expectGone(tree, workDir);
    const run = await until(
      async () => {
        const data = (await api(base, headers, `/v1/test-runs/${runId}`)).data;
        return data.status === 'failed' ? data : undefined;
      },
      15_000,
      'the run to be failed',
    );
    expect(run.report.runTypeInfo.runnerError).toMatch(
      /^Runner failed: the process executing this run stopped/,
    );
    second.child.kill('SIGTERM');
    await second.exited;
  }, 300_000);
});

describe('kill -9 of a worker mid-run (PostgreSQL)', () => {
  let site: Site;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await site?.close();
  });

  it('the worker dies, its run processes end with it; the next worker removes the folder', async () => {
    site = await startSite();
    const t = await createTestApp({ database: 'postgres', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    try {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const env = {
        DATABASE_URL: t.databaseUrl as string,
        DATA_DIR: t.dataDir,
        ADMIN_PASSWORD: 'admin-password',
        RUNNER_STALE_HEARTBEAT_MS: '3000',
      };
      const worker = await startProcess(workerFile, env, /worker ready/);
      children.push(worker.child);
      await startLongBrowserRun(address, t.headers, site, 'worker-kill');
      const { tree, workDir } = runTree(worker.child.pid as number);

      await killHard(worker.child, worker.exited);
      await until(
        () => (tree.every((info) => !alive(info)) ? true : undefined),
        5_000,
        'the run processes to end',
      );

      const next = await startProcess(workerFile, env, /worker ready/);
      children.push(next.child);
      await expectGone(tree, workDir);
      next.child.kill('SIGTERM');
      await next.exited;
    } finally {
      await t.close();
    }
  }, 300_000);
});
