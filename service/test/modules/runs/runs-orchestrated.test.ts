import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchStartupMs, startupCost } from '../../../src/modules/runs/planner.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { type Site, setCap, startSite, waitForStatus } from './helpers.ts';
import { batchesOf, createTests, failingUiTest, keysOf, slowUiTest, triggerBulk } from './orchestrated.ts';

/** Orchestrated runs on the embedded runner (SQLite, RUNNER_SLOTS=3), real Chromium. */
describe('orchestrated runs (embedded, SQLite)', () => {
  let t: TestApp;
  let site: Site;

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000', RUNNER_SLOTS: '3' },
    });
    await setCap(t, 3);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  let ids: string[] = [];
  let firstRunId = '';

  it('splits a run over the free slots and merges one report, as an unsplit run writes it', async () => {
    // The step estimate sees a request (no wait): the 4 s test is not known to be long yet.
    ids = await createTests(t, [
      slowUiTest(site, 'orch long', 10000),
      ...[1, 2, 3, 4, 5].map((n) =>
        slowUiTest(site, `orch short ${n}`, 300, {
          steps: [
            ...slowUiTest(site, `orch short ${n}`, 300).steps,
            { name: 'pause', action: { name: 'wait', ms: 2500 } },
          ],
        }),
      ),
    ]);
    const runId = await triggerBulk(t, ids);
    firstRunId = runId;
    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 180_000);
    expect(run.status).toBe('completed');
    expect(run.stats).toEqual({ passed: 6, failed: 0, skipped: 0, total: 6 });
    const report = run.report as {
      runTypeInfo: { testResults: Array<{ testId: string; status: string; steps: unknown[] }> };
    };
    // In the order an unsplit run lists them (spec file names), with every test's step tree.
    expect(report.runTypeInfo.testResults.map((test) => test.testId)).toEqual(ids);
    for (const test of report.runTypeInfo.testResults) {
      expect(test.status).toBe('passed');
      expect(test.steps.length).toBeGreaterThan(0);
    }
    const batches = await batchesOf(t, runId);
    const testBatches = batches.filter((batch) => batch.kind === 'tests');
    expect(testBatches.length).toBeGreaterThanOrEqual(2);
    expect(testBatches.length).toBeLessThanOrEqual(3);
    expect(batches.every((batch) => batch.status === 'done')).toBe(true);
    expect(new Set(testBatches.map((batch) => batch.slot)).size).toBe(testBatches.length);
    // The run detail says how many batches the planner chose and why.
    expect((run.metadata as { plan?: unknown }).plan).toEqual({
      batches: testBatches.length,
      reason: expect.stringMatching(
        new RegExp(`^${testBatches.length} batches on \\d+ free slots: expected `),
      ),
    });
    // Each batch measured what a `playwright test` costs here besides its tests (its wall time
    // exceeds its tests' sum): the next plan draws on that, within the fallback.
    expect(startupCost.measured).toBeGreaterThanOrEqual(testBatches.length);
    expect(startupCost.estimate()).toBeGreaterThan(0);
    expect(startupCost.estimate()).toBeLessThanOrEqual(batchStartupMs);
    const shards = run.shards as Array<{
      worker: string;
      tests: number;
      batches: number;
      durationMs: number;
    }>;
    expect(shards.length).toBe(testBatches.length);
    expect(shards.reduce((sum, shard) => sum + shard.tests, 0)).toBe(6);
    // The batches, for the console: which tests each ran, where, how long, how many claims.
    const runBatches = run.batches as Array<Record<string, unknown>>;
    expect(runBatches.map((batch) => batch.position)).toEqual(testBatches.map((batch) => batch.position));
    expect(runBatches.flatMap((batch) => batch.testIds as string[]).sort()).toEqual([...ids].sort());
    for (const batch of runBatches) {
      expect(batch).toMatchObject({ status: 'done', attempts: 1 });
      expect(shards.map((shard) => shard.worker)).toContain(batch.worker);
      expect(batch.durationMs).toBeGreaterThan(0);
    }
    // Every test ran once; the slots worked side by side.
    for (const n of [1, 2, 3, 4, 5]) expect(site.hits.get(`/slow?ms=300&t=orch%20short%20${n}`)).toBe(1);
    expect(site.hits.get('/slow?ms=10000&t=orch%20long')).toBe(1);
    // Artifacts as the spec lists them; nothing of the batches' scratch left behind.
    const keys = await keysOf(t, runId);
    for (const name of ['bundle.tgz', 'playwright-report.tar.gz', 'test-results.json', 'test-run.log'])
      expect(keys.artifacts).toContain(name);
    expect(keys.artifacts.every((key) => !key.startsWith('run-work'))).toBe(true);
    expect(keys.scratch).toEqual([]);
    const json = JSON.parse(String(await t.ctx.blobs.get(`runs/${runId}/test-results.json`))) as {
      stats: { expected: number; unexpected: number };
    };
    expect(json.stats).toMatchObject({ expected: 6, unexpected: 0 });
    const html = await t.ctx.blobs.get(`runs/${runId}/playwright-report.tar.gz`);
    expect(zlib.gunzipSync(html as Buffer).includes(Buffer.from('index.html'))).toBe(true);
    const listed = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/tests` })).json().data;
    expect(listed.map((test: { testId: string }) => test.testId)).toEqual(ids);
  }, 240_000);

  it('orders the second run of the same tests by the first run\u2019s durations', async () => {
    await setCap(t, 3);
    const runId = await triggerBulk(t, ids);
    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 180_000);
    expect(run.status).toBe('completed');
    const batches = (await batchesOf(t, runId)).filter((batch) => batch.kind === 'tests');
    // History (the first run's recorded durations) says the 10 s test is the longest, though
    // its steps look short (their estimate is under 2 s): it is packed first, into an empty
    // batch, which is expected at least its recorded time. Which batch is claimed first
    // depends on how long the short tests took, so the claim order is checked as a rule.
    const recorded = await t.ctx.db
      .selectFrom('runTests')
      .select(['testId', 'duration'])
      .where('runId', '=', firstRunId)
      .execute();
    const longest = recorded.reduce((a, b) => (Number(b.duration) > Number(a.duration) ? b : a));
    expect(longest.testId).toBe(ids[0]);
    const holding = batches.find((batch) => JSON.parse(String(batch.testIds)).includes(ids[0]));
    expect(JSON.parse(String(holding?.testIds))[0]).toBe(ids[0]);
    expect(Number(holding?.expectedMs)).toBeGreaterThanOrEqual(Number(longest.duration));
    const expected = batches.map((batch) => Number(batch.expectedMs));
    expect(expected).toEqual([...expected].sort((a, b) => b - a));
  }, 240_000);

  it('fails the run naming the failing test, and holds the cap across slots', async () => {
    await setCap(t, 2);
    site.inFlight.max = 0;
    const failing = await createTests(t, [
      ...[1, 2, 3, 4].map((n) => ({
        ...slowUiTest(site, `cap ${n}`, 2500),
        steps: [
          ...slowUiTest(site, `cap ${n}`, 2500).steps,
          { name: 'pause', action: { name: 'wait', ms: 4000 } },
        ],
      })),
      failingUiTest(site, 'cap broken'),
    ]);
    const runId = await triggerBulk(t, failing);
    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 180_000);
    expect(run.status).toBe('failed');
    expect(run.stats).toEqual({ passed: 4, failed: 1, skipped: 0, total: 5 });
    const results = (
      run.report as {
        runTypeInfo: { testResults: Array<{ name: string; status: string; errorMessage: string | null }> };
      }
    ).runTypeInfo.testResults;
    const broken = results.find((test) => test.status === 'failed');
    expect(broken?.name).toBe('cap broken');
    expect(broken?.errorMessage).toEqual(expect.any(String));
    const testBatches = (await batchesOf(t, runId)).filter((batch) => batch.kind === 'tests');
    expect(testBatches.length).toBe(2);
    expect(site.inFlight.max).toBeLessThanOrEqual(2);
    await setCap(t, 3);
  }, 240_000);

  it('cancel ends every batch', async () => {
    await setCap(t, 3);
    const long = await createTests(
      t,
      [1, 2, 3].map((n) => ({
        ...slowUiTest(site, `cancel ${n}`, 100),
        steps: [
          ...slowUiTest(site, `cancel ${n}`, 100).steps,
          { name: 'pause', action: { name: 'wait', ms: 60000 } },
        ],
      })),
    );
    const runId = await triggerBulk(t, long, { timeout: 300000 });
    const deadline = Date.now() + 120_000;
    // Every batch is at work: each test has called the site.
    while (Date.now() < deadline && [1, 2, 3].some((n) => !site.hits.get(`/slow?ms=100&t=cancel%20${n}`)))
      await new Promise((resolve) => setTimeout(resolve, 200));
    const claimed = (await batchesOf(t, runId)).filter((batch) => batch.status === 'claimed');
    expect(claimed.length).toBe(3);
    const response = await t.api({ method: 'POST', url: `/v1/test-runs/${runId}/cancel` });
    expect(response.statusCode).toBe(200);
    const ended = Date.now() + 20_000;
    let batches = await batchesOf(t, runId);
    // The batch rows end before each slot's clean-up (work folder, process row, abort handle).
    while (
      Date.now() < ended &&
      (batches.some((batch) => batch.status === 'claimed') || t.ctx.runs.aborts.size > 0)
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      batches = await batchesOf(t, runId);
    }
    expect(batches.filter((batch) => batch.kind === 'tests').map((batch) => batch.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(t.ctx.runs.aborts.size).toBe(0);
    expect((await waitForStatus(t, runId, ['cancelled'])).report).toBeNull();
  }, 240_000);
});
