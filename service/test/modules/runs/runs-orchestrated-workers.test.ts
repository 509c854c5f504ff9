import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helper.ts';
import { type Site, setCap, startSite, waitForStatus } from './helpers.ts';
import { batchesOf, createTests, failingUiTest, keysOf, slowUiTest, triggerBulk } from './orchestrated.ts';
import { WorkerProcesses, workerEnv } from './worker-processes.ts';

// Generous: on a loaded 2-core VM heartbeats (every 500 ms) can lag several seconds.
const staleMs = 10_000;

type Result = { testId: string; name: string; status: string; errorMessage: string | null };
const resultsOf = (run: Record<string, unknown>) =>
  (run.report as { runTypeInfo: { testResults: Result[] } }).runTypeInfo.testResults;

/** Orchestrated runs on PostgreSQL: three `npm run worker` processes of one slot each share a run. */
describe('orchestrated runs over three worker processes (PostgreSQL)', () => {
  let t: TestApp;
  let site: Site;
  const workers = new WorkerProcesses(() =>
    workerEnv(t, { RUNNER_SLOTS: '1', RUNNER_STALE_HEARTBEAT_MS: String(staleMs) }),
  );
  const pidOfSlot = (slot: string | null) => String(slot).split(':')[1];

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ database: 'postgres', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    for (let index = 0; index < 3; index += 1) await workers.start();
  }, 120_000);
  afterAll(async () => {
    await workers.stop();
    await t?.close();
    await site?.close();
  });

  it('a 12-test run over three workers gives one report with the results and stats of the unsplit run', async () => {
    const ids = await createTests(t, [
      ...Array.from({ length: 11 }, (_, n) => ({
        ...slowUiTest(site, `pg ${n}`, 200),
        steps: [
          ...slowUiTest(site, `pg ${n}`, 200).steps,
          { name: 'pause', action: { name: 'wait', ms: 1500 } },
        ],
      })),
      failingUiTest(site, 'pg broken'),
    ]);
    await setCap(t, 3);
    const splitId = await triggerBulk(t, ids);
    const split = await waitForStatus(t, splitId, ['completed', 'failed', 'cancelled'], 300_000);
    // One parallel: the same tests as one unsplit `playwright test`.
    await setCap(t, 1);
    const wholeId = await triggerBulk(t, ids);
    const whole = await waitForStatus(t, wholeId, ['completed', 'failed', 'cancelled'], 300_000);
    await setCap(t, 3);

    expect(whole.status).toBe('failed');
    expect(split.status).toBe('failed');
    expect(split.stats).toEqual({ passed: 11, failed: 1, skipped: 0, total: 12 });
    expect(split.stats).toEqual(whole.stats);
    const strip = (results: Result[]) =>
      results.map(({ testId, name, status }) => ({ testId, name, status }));
    expect(strip(resultsOf(split))).toEqual(strip(resultsOf(whole)));
    expect(resultsOf(split).find((test) => test.status === 'failed')?.name).toBe('pg broken');
    expect(resultsOf(split).find((test) => test.status === 'failed')?.errorMessage).toEqual(
      expect.any(String),
    );

    const batches = (await batchesOf(t, splitId)).filter((batch) => batch.kind === 'tests');
    const wholeBatches = await batchesOf(t, wholeId);
    expect(wholeBatches).toEqual([]);
    expect(batches).toHaveLength(3);
    const pids = new Set(batches.map((batch) => pidOfSlot(batch.slot)));
    expect([...pids].sort()).toEqual(workers.pids().sort());
    expect((split.shards as unknown[]).length).toBe(3);
    const keys = await keysOf(t, splitId);
    for (const name of ['bundle.tgz', 'playwright-report.tar.gz', 'test-results.json', 'test-run.log'])
      expect(keys.artifacts).toContain(name);
    expect(keys.scratch).toEqual([]);
    for (let n = 0; n < 11; n += 1) expect(site.hits.get(`/slow?ms=200&t=pg%20${n}`)).toBe(2);
  }, 600_000);

  it('a SIGKILLed worker\u2019s batch is run again by another slot and the run completes', async () => {
    const ids = await createTests(
      t,
      Array.from({ length: 6 }, (_, n) => ({
        ...slowUiTest(site, `kill ${n}`, 100),
        steps: [
          ...slowUiTest(site, `kill ${n}`, 100).steps,
          { name: 'pause', action: { name: 'wait', ms: 4000 } },
        ],
      })),
    );
    const runId = await triggerBulk(t, ids);
    const deadline = Date.now() + 180_000;
    let batches = await batchesOf(t, runId);
    // Wait until the three batches are claimed and their first tests have called the site.
    const started = () =>
      batches.filter((batch) => batch.kind === 'tests' && batch.status === 'claimed').length === 3 &&
      batches
        .filter((batch) => batch.kind === 'tests')
        .every((batch) =>
          (JSON.parse(batch.testIds) as string[]).some((id) =>
            site.hits.get(`/slow?ms=100&t=kill%20${ids.indexOf(id)}`),
          ),
        );
    while (Date.now() < deadline && !started()) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      batches = await batchesOf(t, runId);
    }
    expect(started()).toBe(true);
    const victim = batches.find((batch) => batch.kind === 'tests' && batch.position === 1);
    const victimPid = pidOfSlot(victim?.slot ?? null);
    const worker = workers.ofSlot(victim?.slot ?? null) as ChildProcess;
    const killed = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGKILL');
    await killed;

    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 300_000);
    expect(run.status).toBe('completed');
    expect(run.stats).toEqual({ passed: 6, failed: 0, skipped: 0, total: 6 });
    const rerun = (await batchesOf(t, runId)).find((batch) => batch.position === 1);
    expect(rerun?.status).toBe('done');
    expect(rerun?.attempts).toBe(2);
    expect(pidOfSlot(rerun?.slot ?? null)).not.toBe(victimPid);
    // The victim's tests ran again elsewhere, never twice at once: its browser died with it.
    for (const id of JSON.parse(String(victim?.testIds)) as string[])
      expect(site.hits.get(`/slow?ms=100&t=kill%20${ids.indexOf(id)}`)).toBeGreaterThanOrEqual(1);
  }, 600_000);
});
