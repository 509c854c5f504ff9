import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownRunnerError } from '../../../src/modules/runs/dispatcher.ts';
import { apiTest, type Site, startSite } from './helpers.ts';
import { serverFile, startProcess, until } from './service-process.ts';

/**
 * Graceful shutdown: SIGTERM to a real service process while a run executes. HTTP stops accepting at
 * once; the run finishes if it can within SHUTDOWN_GRACE_MS, otherwise it is ended as failed
 * with a runner error naming the shutdown; the process exits 0 either way.
 */
describe('SIGTERM while a run executes (embedded service)', () => {
  let site: Site;
  const dataDirs: string[] = [];
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Starts `node src/server.ts`, creates an API test calling `slowUrl` and starts it; resolves once the site saw the call. */
  async function startServiceWithRun(graceMs: number, slowPath: string) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-shutdown-'));
    dataDirs.push(dataDir);
    const service = await startProcess(
      serverFile,
      {
        DATA_DIR: dataDir,
        PORT: '0',
        SMTP_PORT: '0',
        ADMIN_PASSWORD: 'admin-password',
        RATE_LIMIT_PER_MINUTE: '100000',
        SHUTDOWN_GRACE_MS: String(graceMs),
      },
      /written to /,
    );
    const base = service.listeningAt();
    const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
    const form = new FormData();
    form.append(
      'testData',
      JSON.stringify({ status: 'active', ...apiTest('slow call', `${site.url}${slowPath}`) }),
    );
    const created = await fetch(`${base}/v1/tests`, { method: 'POST', headers, body: form });
    expect(created.status).toBe(200);
    const testId = (await created.json()).data.id as string;
    const triggered = await fetch(`${base}/v1/tests/${testId}/remote-run`, { method: 'POST', headers });
    expect(triggered.status).toBe(200);
    const runId = (await triggered.json()).data.runId as string;
    await until(() => site.hits.get(slowPath), 90_000, 'the run to call the site');
    return { ...service, base, dataDir, runId };
  }

  const exitCodeOf = (child: import('node:child_process').ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });

  /** The run as stored, read from the SQLite file once the service is gone. */
  function storedRun(dataDir: string, runId: string) {
    const file = new SqliteDatabase(path.join(dataDir, 'stepdeck.sqlite'), { readonly: true });
    try {
      return file.prepare('select status, runnerError from runs where id = ?').get(runId) as {
        status: string;
        runnerError: string | null;
      };
    } finally {
      file.close();
    }
  }

  async function refusesConnections(base: string): Promise<boolean> {
    try {
      await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
      return false;
    } catch {
      return true;
    }
  }

  it('stops accepting HTTP at once, lets the run finish within the grace period, exits 0', async () => {
    const slowPath = '/slow?ms=8000&shutdown=finish';
    const service = await startServiceWithRun(120_000, slowPath);
    const exit = exitCodeOf(service.child);
    service.child.kill('SIGTERM');
    // The run still has seconds to go: the listener is already closed meanwhile.
    await until(
      async () => ((await refusesConnections(service.base)) ? true : undefined),
      5_000,
      'HTTP to stop',
    );
    expect(service.child.exitCode).toBeNull();

    expect(await exit).toBe(0);
    const run = storedRun(service.dataDir, service.runId);
    expect(run).toEqual({ status: 'completed', runnerError: null });
    expect(service.output()).toMatch(/waiting for running runs to finish/);
  }, 240_000);

  it('ends the run as failed naming the shutdown when the grace period runs out, exits 0', async () => {
    const slowPath = '/slow?ms=120000&shutdown=grace';
    const service = await startServiceWithRun(1_000, slowPath);
    const exit = exitCodeOf(service.child);
    const signalled = Date.now();
    service.child.kill('SIGTERM');
    await until(
      async () => ((await refusesConnections(service.base)) ? true : undefined),
      5_000,
      'HTTP to stop',
    );

    expect(await exit).toBe(0);
    // Well before the site would have answered: the grace period ended the run.
    expect(Date.now() - signalled).toBeLessThan(60_000);
    const run = storedRun(service.dataDir, service.runId);
    expect(run).toEqual({ status: 'failed', runnerError: shutdownRunnerError });
    expect(run.runnerError).toMatch(/shut down/);
  }, 240_000);
});
