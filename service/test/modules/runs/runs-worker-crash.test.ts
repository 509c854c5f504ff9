import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { staleHeartbeatMs } from '../../../src/modules/runs/queue/heartbeat-repository.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import {
  apiTest,
  createTest,
  runOf,
  type Site,
  startLongApiRun,
  startSite,
  waitForStatus,
} from './helpers.ts';
import { runGroupOf } from './service-process.ts';
import { WorkerProcesses, workerEnv } from './worker-processes.ts';

const runsReadme = path.resolve(import.meta.dirname, '../../../../docs/runs.md');
const staleMs = 3000;

describe('worker crash recovery (PostgreSQL)', () => {
  let t: TestApp;
  let site: Site;
  const workers = new WorkerProcesses(() => workerEnv(t, { RUNNER_STALE_HEARTBEAT_MS: String(staleMs) }));
  const orphanGroups: number[] = [];

  const startWorker = () => workers.start();

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ database: 'postgres', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(async () => {
    for (const group of orphanGroups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {}
    }
    await workers.stop();
    await t?.close();
    await site?.close();
  });

  it('keeps the documented 15 s default for the stale-heartbeat threshold', () => {
    expect(staleHeartbeatMs).toBe(15_000);
    expect(loadConfig({}).runnerStaleHeartbeatMs).toBe(staleHeartbeatMs);
    expect(fs.readFileSync(runsReadme, 'utf8')).toMatch(/\| `RUNNER_STALE_HEARTBEAT_MS` \| `15000` \|/);
  });

  it('fails the run of a SIGKILLed worker after the heartbeat timeout; a new worker then runs normally', async () => {
    const first = await startWorker();
    const runId = await startLongApiRun(t, site, 'crash');
    expect(site.hits.get('/status?code=200&crash=1')).toBe(1);
    // A live worker's heartbeats keep the run alive past the threshold.
    await new Promise((resolve) => setTimeout(resolve, staleMs + 1500));
    expect((await runOf(t, runId)).status).toBe('running');

    const group = runGroupOf([first.pid as number]);
    if (group) orphanGroups.push(group);
    const killed = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await killed;
    // A crash of the whole machine takes the browser with it.
    if (group) process.kill(-group, 'SIGKILL');

    const second = await startWorker();
    const failed = await waitForStatus(t, runId, ['failed', 'completed', 'cancelled'], 60_000);
    expect(failed.status).toBe('failed');
    expect((failed.report as { runTypeInfo: { runnerError: string } }).runTypeInfo.runnerError).toMatch(
      /^Runner failed: the process executing this run stopped/,
    );
    expect(failed.completedAt).toEqual(expect.any(String));

    const quick = await createTest(t, apiTest('after crash', `${site.url}/status?code=200&crash=2`));
    const next = (await t.api({ method: 'POST', url: `/v1/tests/${quick}/remote-run` })).json().data
      .runId as string;
    expect((await waitForStatus(t, next, ['completed', 'failed'])).status).toBe('completed');
    expect(site.hits.get('/status?code=200&crash=2')).toBe(1);
    const row = await t.ctx.db
      .selectFrom('runs')
      .select(['runnerId'])
      .where('id', '=', next)
      .executeTakeFirstOrThrow();
    expect(String(row.runnerId).split(':')[1]).toBe(String(second.pid));
  });
});
