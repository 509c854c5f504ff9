import { runTriageResponse, testHistoryResponse } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest } from '../runs/helpers.ts';
import { readyTest, runToEnd, startPages } from './pages.ts';

describe.each(databaseKinds)('test history, triage and quarantine over real runs on %s', (database) => {
  let t: TestApp;
  let pages: Awaited<ReturnType<typeof startPages>>;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  let flaky: string;
  let checkout: string;
  let search: string;
  const flakyRuns: Array<{ runId: string; status: string; metadata: Record<string, unknown> }> = [];
  let featureRun: string;

  /** Runs tests to their end past the API cooldowns (the test clock moves 11 s), history written. */
  const run = async (testIds: string[], metadata: Record<string, unknown>) => {
    offsetMs += 11_000;
    return runToEnd(t, pages.url, testIds, metadata);
  };
  const history = async (testId: string, query = '') => {
    const response = await t.api({ method: 'GET', url: `/v1/tests/${testId}/history${query}` });
    expect(response.statusCode, response.body).toBe(200);
    return testHistoryResponse.parse(response.json());
  };
  const triage = async (runId: string) => {
    const response = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/triage` });
    expect(response.statusCode, response.body).toBe(200);
    return runTriageResponse.parse(response.json()).data;
  };

  beforeAll(async () => {
    pages = await startPages();
    t = await createTestApp({ database, clock, background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    flaky = await createTest(t, readyTest('Flaky page', '/flaky'));
    checkout = await createTest(t, readyTest('Checkout', '/broken'));
    search = await createTest(t, readyTest('Search', '/toggle'));
    for (let index = 0; index < 4; index++)
      flakyRuns.push(await run([flaky], { commitSha: 'a1b2c3d', ref: 'refs/heads/main', label: 'nightly' }));
    // On main, checkout fails and search passes.
    await run([checkout, search], { commitSha: 'c0ffee1', ref: 'main' });
    // On a pull request's branch, search fails too; checkout fails as it does on main.
    pages.state.toggleReady = false;
    const feature = await run([checkout, search], {
      commitSha: 'feedbee',
      ref: 'feature/pay',
      baseRef: 'main',
      pullRequest: 42,
    });
    featureRun = feature.runId;
  }, 600_000);
  afterAll(async () => {
    await t?.close();
    await pages?.close();
  });

  it('stores the run metadata the trigger sent with the run', async () => {
    const response = await t.api({ method: 'GET', url: `/v1/test-runs/${featureRun}` });
    expect(response.json().data.metadata.source).toEqual({
      commitSha: 'feedbee',
      ref: 'feature/pay',
      baseRef: 'main',
      pullRequest: 42,
    });
    const bad = await t.api({
      method: 'POST',
      url: `/v1/tests/${flaky}/remote-run`,
      payload: { metadata: { pullRequest: 'seven' } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('metadata.pullRequest');
  });

  it('a page that fails every other load shows up as flaky across runs', async () => {
    expect(flakyRuns.map((entry) => entry.status)).toEqual(['completed', 'failed', 'completed', 'failed']);
    // One test: one batch, and the run detail says why.
    expect(flakyRuns[0]?.metadata.plan).toEqual({ batches: 1, reason: '1 batch: the run has 1 test' });
    const body = await history(flaky);
    expect(body.data.map((entry) => entry.status)).toEqual(['failed', 'passed', 'failed', 'passed']);
    expect(body.summary).toMatchObject({ runs: 4, passRate: 0.5, flakeRate: 0.5 });
    expect(body.summary.failingSince).toMatchObject({ runId: flakyRuns[3]?.runId, commitSha: 'a1b2c3d' });
    expect(body.summary.durationP50).toBeGreaterThan(0);
    const latest = body.data[0];
    expect(latest).toMatchObject({ ref: 'main', commitSha: 'a1b2c3d', label: 'nightly', branchName: 'main' });
    expect(latest?.trigger).toBe('apiKey');
    expect(latest?.attempts).toBe(1);
    expect(latest?.failedStepId).toEqual(expect.any(String));
    expect(latest?.stepDurations).toEqual([
      { stepId: expect.any(String), duration: expect.any(Number) },
      { stepId: latest?.failedStepId, duration: expect.any(Number) },
    ]);
    // The same failure with another timestamp in the page: one fingerprint.
    expect(body.data[0]?.fingerprint).toBe(body.data[2]?.fingerprint);
    const failing = await triage(flakyRuns[3]?.runId as string);
    expect(failing.failures).toMatchObject([{ testId: flaky, triage: 'flaky' }]);
  });

  it('a failure failing on main is known in a branch run, and one that passes on main is new', async () => {
    const result = await triage(featureRun);
    expect(result.baseBranch).toBe('main');
    const byTest = new Map(result.failures.map((failure) => [failure.testId, failure]));
    expect(byTest.get(checkout)).toMatchObject({ triage: 'known', knownSince: { commitSha: 'c0ffee1' } });
    expect(byTest.get(search)).toMatchObject({ triage: 'new', knownSince: null });
    expect(result.counts).toEqual({ new: 1, known: 1, flaky: 0, quarantined: 0 });
    const searchHistory = await history(search);
    expect(searchHistory.data.map((entry) => [entry.ref, entry.status, entry.pullRequest])).toEqual([
      ['feature/pay', 'failed', 42],
      ['main', 'passed', null],
    ]);
  });

  it('pages and filters a test’s history', async () => {
    const first = await history(flaky, '?limit=3&page=0');
    expect(first.data).toHaveLength(3);
    expect(first.pagination).toEqual({ page: 0, limit: 3, total: 4, totalPages: 2, hasMore: true });
    const second = await history(flaky, '?limit=3&page=1');
    expect(second.data.map((entry) => entry.runId)).toEqual([flakyRuns[0]?.runId]);
    expect(second.pagination.hasMore).toBe(false);
    expect((await history(flaky, '?status=failed')).data.map((entry) => entry.runId)).toEqual([
      flakyRuns[3]?.runId,
      flakyRuns[1]?.runId,
    ]);
    expect((await history(flaky, '?branch=main')).pagination.total).toBe(4);
    expect((await history(flaky, '?branch=elsewhere')).pagination.total).toBe(0);
    const since = (await history(flaky)).data[1]?.createdAt as string;
    expect((await history(flaky, `?since=${encodeURIComponent(since)}`)).pagination.total).toBe(2);
    const bad = await t.api({ method: 'GET', url: `/v1/tests/${flaky}/history?status=sometimes` });
    expect(bad.statusCode).toBe(400);
    const badSince = await t.api({ method: 'GET', url: `/v1/tests/${flaky}/history?since=yesterday` });
    expect(badSince.statusCode).toBe(400);
    expect(badSince.json().message).toContain('since must be an ISO 8601 date-time');
    const unknown = await t.api({
      method: 'GET',
      url: '/v1/tests/00000000-0000-4000-8000-000000000000/history',
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('quarantines a test (audited), reports its failures as quarantined, and releases it', async () => {
    const past = await t.api({
      method: 'PUT',
      url: `/v1/tests/${checkout}/quarantine`,
      payload: { reason: 'payment sandbox down', expiresAt: '2020-01-01T00:00:00Z' },
    });
    expect(past.statusCode).toBe(400);
    expect(
      (await t.api({ method: 'PUT', url: `/v1/tests/${checkout}/quarantine`, payload: {} })).statusCode,
    ).toBe(400);
    const put = await t.api({
      method: 'PUT',
      url: `/v1/tests/${checkout}/quarantine`,
      payload: { reason: 'payment sandbox down', owner: 'payments team' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({
      testId: checkout,
      reason: 'payment sandbox down',
      expiresAt: null,
    });
    const result = await triage(featureRun);
    expect(result.failures.find((failure) => failure.testId === checkout)).toMatchObject({
      triage: 'quarantined',
      quarantine: { owner: 'payments team' },
    });
    expect((await history(checkout)).quarantine?.reason).toBe('payment sandbox down');
    const audit = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: '/console/v1/audit-log?limit=50',
    });
    expect(JSON.stringify(audit.json())).toContain('PUT /v1/tests/:testId/quarantine');
    expect((await t.api({ method: 'DELETE', url: `/v1/tests/${checkout}/quarantine` })).statusCode).toBe(200);
    expect((await t.api({ method: 'DELETE', url: `/v1/tests/${checkout}/quarantine` })).statusCode).toBe(404);
    expect((await triage(featureRun)).counts.quarantined).toBe(0);
  });

  it('deletes results past the retention', async () => {
    expect(await t.app.history.prune(1)).toBe(0);
    offsetMs += 2 * 86_400_000;
    expect(await t.app.history.prune(1)).toBe(8);
    expect((await history(flaky)).pagination.total).toBe(0);
  });
});
