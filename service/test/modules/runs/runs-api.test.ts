import {
  cancelRunResponse,
  latestRunResponse,
  remoteRunManyResponse,
  remoteRunSingleResponse,
  runStatisticsResponse,
  testRunDetailResponse,
  testRunListResponse,
} from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/modules/runs/index.ts';
import { consoleCall, createApiKey, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { apiTest, createTag, createTest } from './helpers.ts';

/** Trigger rules, listing, statistics and cancel, with no runner attached (runs stay pending). */
describe.each(databaseKinds)('remote-run rules and run listing on %s', (database) => {
  let t: TestApp;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const advance = (ms: number) => {
    offsetMs += ms;
  };
  let leaf: string;
  let dir: string;
  let dirLeafA: string;
  let dirLeafB: string;
  let draft: string;
  let suiteDraft: string;
  let draftsOnly: string;
  let tagged: string;
  let tagId: string;

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
    leaf = await createTest(t, apiTest('leaf one', 'http://127.0.0.1:9/x'));
    dir = await createTest(t, { name: 'suite', directory: true });
    dirLeafA = await createTest(t, { ...apiTest('suite a', 'http://127.0.0.1:9/a'), parentTestId: dir });
    dirLeafB = await createTest(t, { ...apiTest('suite b', 'http://127.0.0.1:9/b'), parentTestId: dir });
    suiteDraft = await createTest(t, {
      ...apiTest('suite draft', 'http://127.0.0.1:9/c'),
      parentTestId: dir,
      status: 'draft',
    });
    draftsOnly = await createTest(t, { name: 'drafts only', directory: true });
    draft = await createTest(t, {
      ...apiTest('only draft', 'http://127.0.0.1:9/d'),
      parentTestId: draftsOnly,
      status: 'draft',
    });
    tagId = await createTag(t, 'smoke');
    tagged = await createTest(t, { ...apiTest('tagged', 'http://127.0.0.1:9/t'), tags: [tagId] });
  });
  afterAll(async () => t?.close());

  const trigger = (testId: string, payload?: Record<string, unknown>) =>
    t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run`, ...(payload ? { payload } : {}) });
  const bulk = (payload: Record<string, unknown>) =>
    t.api({ method: 'POST', url: '/v1/tests/remote-run', payload });
  const cancel = (runId: string) => t.api({ method: 'POST', url: `/v1/test-runs/${runId}/cancel` });

  let leafRun: string;
  it('starts a single leaf run: pending, no totalTests, trigger recorded', async () => {
    const response = await trigger(leaf, { config: { workers: 40, use: { headless: false }, retries: 1 } });
    expect(response.statusCode).toBe(200);
    const body = remoteRunSingleResponse.strict().parse({ data: response.json().data }).data;
    expect(response.json().data).toEqual({ runId: body.runId, status: 'pending' });
    leafRun = body.runId;
    const detail = testRunDetailResponse.parse(
      (await t.api({ method: 'GET', url: `/v1/test-runs/${leafRun}` })).json(),
    ).data;
    expect(detail).toMatchObject({ status: 'pending', testId: leaf, testName: 'leaf one', report: null });
    // Headless forced, workers clamped to the organization's cap: the install's runner slots (4).
    expect(detail.config).toMatchObject({ workers: 4, retries: 1, use: { headless: true } });
    const row = await t.ctx.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', leafRun)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ triggerType: 'apiKey', triggerName: 'bootstrap', targetType: 'test' });
    const tests = await t.api({ method: 'GET', url: `/v1/test-runs/${leafRun}/tests` });
    expect(tests.json()).toEqual({ data: [{ testId: leaf, testName: 'leaf one' }] });
  });

  it('answers 409 while the test has a pending run, for both endpoints', async () => {
    const again = await trigger(leaf);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/pending, queued or running/);
    advance(11_000);
    const viaBulk = await bulk({ testIds: [leaf] });
    expect(viaBulk.statusCode).toBe(409);
  });

  it('cancels a pending run and then applies the 10 s per-test cooldown', async () => {
    const cancelled = await cancel(leafRun);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelRunResponse.parse(cancelled.json()).data.success).toBe(true);
    const detail = (await t.api({ method: 'GET', url: `/v1/test-runs/${leafRun}` })).json().data;
    expect(detail.status).toBe('cancelled');
    expect(detail.cancelledAt).toEqual(expect.any(String));
    expect(detail.report).toBeNull();
    expect((await cancel(leafRun)).statusCode).toBe(400);
    const report = await t.api({ method: 'GET', url: `/v1/test-runs/${leafRun}/report` });
    expect(report.statusCode).toBe(400);

    // The run was created 11 s ago on the test clock: no cooldown left.
    const second = await trigger(leaf);
    expect(second.statusCode).toBe(200);
    expect((await cancel(second.json().data.runId)).statusCode).toBe(200);
    advance(4_000);
    const early = await trigger(leaf);
    expect(early.statusCode).toBe(429);
    expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(5);
    expect(Number(early.headers['retry-after'])).toBeLessThanOrEqual(6);
    advance(6_500);
    const later = await trigger(leaf);
    expect(later.statusCode).toBe(200);
    expect((await cancel(later.json().data.runId)).statusCode).toBe(200);
  });

  it('lets schedules trigger without the API cooldowns', async () => {
    const request = {
      organizationId: t.bootstrap.organizationId,
      projectId: t.bootstrap.projectId,
      branchId: t.bootstrap.branchId,
      testIds: [leaf],
      trigger: {
        type: 'schedule' as const,
        scheduleId: crypto.randomUUID(),
        scheduleName: 'nightly',
        scheduleType: 'cron',
      },
      mode: 'bulk' as const,
    };
    const first = await startRun(t.ctx, request);
    expect((await cancel(first.runId)).statusCode).toBe(200);
    const second = await startRun(t.ctx, request);
    expect(second).toMatchObject({ status: 'pending', totalTests: 1 });
    const detail = (await t.api({ method: 'GET', url: `/v1/test-runs/${second.runId}` })).json().data;
    expect(detail).toMatchObject({ scheduleId: request.trigger.scheduleId, scheduleType: 'cron' });
    expect((await cancel(second.runId)).statusCode).toBe(200);
  });

  it('runs a directory through the single endpoint with totalTests and only active leaves', async () => {
    const response = await trigger(dir);
    expect(response.statusCode).toBe(200);
    const data = remoteRunManyResponse.parse(response.json()).data;
    expect(data.totalTests).toBe(2);
    expect(data.message).toContain('2 tests');
    const tests = (await t.api({ method: 'GET', url: `/v1/test-runs/${data.runId}/tests` })).json().data;
    expect(tests.map((test: { testId: string }) => test.testId).sort()).toEqual([dirLeafA, dirLeafB].sort());
    // The draft is said out loud: in the answer, and on the run for whoever reads it later.
    expect(data.leftOut).toEqual([{ testId: suiteDraft, name: 'suite draft', status: 'draft' }]);
    const run = (await t.api({ method: 'GET', url: `/v1/test-runs/${data.runId}` })).json().data;
    expect(run.metadata.leftOut).toEqual({ count: 1, tests: data.leftOut });
    expect((await cancel(data.runId)).statusCode).toBe(200);
  });

  it('validates bulk requests: exactly one selector, known tag and tests, something executable', async () => {
    advance(11_000);
    expect((await bulk({})).statusCode).toBe(400);
    expect((await bulk({ testIds: [leaf], tagId })).statusCode).toBe(400);
    expect((await bulk({ tagId: crypto.randomUUID() })).statusCode).toBe(404);
    expect((await bulk({ testIds: [crypto.randomUUID()] })).statusCode).toBe(404);
    const none = await bulk({ testIds: [draft] });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toMatch(/No executable tests/);
    // A directory of drafts through the single endpoint: nothing executable either.
    const emptyDirectory = await trigger(draftsOnly);
    expect(emptyDirectory.statusCode).toBe(400);
    expect(emptyDirectory.json().message).toMatch(/No executable tests/);
  });

  it('runs a draft or archived leaf named by itself: only directory, tag and bulk runs skip them', async () => {
    const response = await trigger(draft);
    expect(response.statusCode).toBe(200);
    const runId = response.json().data.runId;
    const tests = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/tests` });
    expect(tests.json()).toEqual({ data: [{ testId: draft, testName: 'only draft' }] });
    expect((await cancel(runId)).statusCode).toBe(200);

    const archived = await createTest(t, {
      ...apiTest('archived leaf', 'http://127.0.0.1:9/e'),
      status: 'archived',
    });
    const archivedRun = await trigger(archived);
    expect(archivedRun.statusCode).toBe(200);
    expect((await cancel(archivedRun.json().data.runId)).statusCode).toBe(200);
    advance(11_000);
    expect((await bulk({ testIds: [archived] })).statusCode).toBe(400);
  });

  it('applies the 10 s per-organization bulk cooldown', async () => {
    const first = await bulk({ testIds: [tagged, dirLeafA] });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'pending', totalTests: 2 });
    expect((await cancel(first.json().data.runId)).statusCode).toBe(200);
    const second = await bulk({ tagId });
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBeDefined();
    advance(10_500);
    const third = await bulk({ tagId });
    expect(third.statusCode).toBe(200);
    expect(third.json().data.totalTests).toBe(1);
    const runId = third.json().data.runId;
    const row = await t.ctx.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ targetType: 'tag', targetName: 'smoke', name: 'smoke' });
    expect((await cancel(runId)).statusCode).toBe(200);
  });

  it('lists, filters and paginates runs; latest and stats', async () => {
    const all = testRunListResponse.parse((await t.api({ method: 'GET', url: '/v1/test-runs' })).json());
    expect(all.pagination).toMatchObject({ page: 0, limit: 20 });
    const total = all.pagination.total;
    expect(total).toBeGreaterThanOrEqual(7);
    const page = (await t.api({ method: 'GET', url: '/v1/test-runs?limit=2&page=1' })).json();
    expect(page.data).toHaveLength(2);
    expect(page.pagination).toMatchObject({ page: 1, limit: 2, total, hasMore: total > 4 });
    expect(page.data[0].id).toBe(all.data[2]?.id);
    expect((await t.api({ method: 'GET', url: '/v1/test-runs?limit=501' })).statusCode).toBe(400);
    expect((await t.api({ method: 'GET', url: '/v1/test-runs?limit=0' })).statusCode).toBe(400);

    const byDir = (await t.api({ method: 'GET', url: `/v1/test-runs?testId=${dir}` })).json();
    // The directory run and the bulk run that held one of its leaves.
    expect(byDir.pagination.total).toBe(2);
    const byLeafName = (await t.api({ method: 'GET', url: '/v1/test-runs?name=LEAF%20ONE' })).json();
    expect(byLeafName.data.every((run: { name: string }) => run.name === 'leaf one')).toBe(true);
    // Three API runs and two scheduled runs.
    expect(byLeafName.pagination.total).toBe(5);
    const pending = (await t.api({ method: 'GET', url: '/v1/test-runs?status=pending' })).json();
    expect(pending.pagination.total).toBe(0);

    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const inclusive = (
      await t.api({ method: 'GET', url: `/v1/test-runs?startDate=${today}&endDate=${today}` })
    ).json();
    expect(inclusive.pagination.total).toBe(total);
    const future = (await t.api({ method: 'GET', url: '/v1/test-runs?startDate=2999-01-01' })).json();
    expect(future.pagination.total).toBe(0);
    expect((await t.api({ method: 'GET', url: '/v1/test-runs?startDate=yesterday' })).statusCode).toBe(400);

    const latest = latestRunResponse.parse(
      (await t.api({ method: 'GET', url: `/v1/test-runs/latest?testId=${leaf}` })).json(),
    ).data;
    expect(latest?.name).toBe('leaf one');
    const none = (
      await t.api({ method: 'GET', url: `/v1/test-runs/latest?testId=${crypto.randomUUID()}` })
    ).json();
    expect(none).toEqual({ data: null });

    const stats = runStatisticsResponse.parse(
      (await t.api({ method: 'GET', url: `/v1/test-runs/stats?testId=${leaf}` })).json(),
    ).data;
    // Every run of this test was cancelled: counted as skipped, no success rate.
    expect(stats).toMatchObject({ passed: 0, failed: 0, successRate: 0, avgDuration: 0 });
    expect(stats.skipped).toBe(stats.totalRuns);
    expect(stats.lastRun).toEqual(expect.any(String));

    // branchId names a branch of the project, as x-branch-id must: else 404, not an empty list.
    const own = (
      await t.api({ method: 'GET', url: `/v1/test-runs?branchId=${t.bootstrap.branchId}` })
    ).json();
    expect(own.pagination.total).toBe(total);
    for (const path of ['/v1/test-runs', '/v1/test-runs/latest', '/v1/test-runs/stats']) {
      const unknown = await t.api({ method: 'GET', url: `${path}?branchId=${crypto.randomUUID()}` });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    }
  });

  it('hides runs of other projects (404) and needs tests:cancel to cancel', async () => {
    const cookie = await t.consoleCookie();
    const project = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/projects',
      payload: { name: 'other' },
    });
    const otherProject = project.json().data.id as string;
    const run = (await t.api({ method: 'GET', url: '/v1/test-runs?limit=1' })).json().data[0].id as string;
    const foreign = await t.api({
      method: 'GET',
      url: `/v1/test-runs/${run}`,
      headers: { 'x-project-id': otherProject },
    });
    expect(foreign.statusCode).toBe(404);
    expect((await t.api({ method: 'GET', url: `/v1/test-runs/${crypto.randomUUID()}` })).statusCode).toBe(
      404,
    );
    const readOnly = await createApiKey(t, ['testRuns:read'], 'reader');
    const refused = await t.api({
      method: 'POST',
      url: `/v1/test-runs/${run}/cancel`,
      headers: { 'x-api-key': readOnly },
    });
    expect(refused.statusCode).toBe(403);
  });

  it('records the working revision, vars and parameters of a single-test run', async () => {
    const withVars = await createTest(t, {
      ...apiTest('with vars', 'http://127.0.0.1:9/v'),
      vars: { user: 'ada', nested: { n: 1 } },
      parameters: { env: 'staging' },
    });
    const working = await t.ctx.db
      .selectFrom('testRevisions')
      .select(['id'])
      .where('testId', '=', withVars)
      .where('kind', '=', 'working')
      .executeTakeFirstOrThrow();
    const runId = (await trigger(withVars)).json().data.runId as string;
    const detail = testRunDetailResponse.parse(
      (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}` })).json(),
    ).data;
    expect(detail).toMatchObject({
      testId: withVars,
      testRevisionId: working.id,
      vars: { user: 'ada', nested: { n: 1 } },
      parameters: { env: 'staging' },
    });
    const listed = (await t.api({ method: 'GET', url: `/v1/test-runs?testId=${withVars}` })).json().data;
    expect(listed[0]).toMatchObject({ id: runId, testRevisionId: working.id });
    expect((await cancel(runId)).statusCode).toBe(200);

    // A test without vars/parameters records null; a directory run records no revision.
    const plain = await createTest(t, apiTest('plain', 'http://127.0.0.1:9/p'));
    const plainRun = (await trigger(plain)).json().data.runId as string;
    const plainDetail = (await t.api({ method: 'GET', url: `/v1/test-runs/${plainRun}` })).json().data;
    expect(plainDetail.testRevisionId).toEqual(expect.any(String));
    expect(plainDetail).toMatchObject({ vars: null, parameters: null });
    expect((await cancel(plainRun)).statusCode).toBe(200);
    const folder = await createTest(t, { name: 'vars dir', directory: true });
    await createTest(t, {
      ...apiTest('in vars dir', 'http://127.0.0.1:9/q'),
      parentTestId: folder,
      vars: { a: 1 },
    });
    const folderRun = (await trigger(folder)).json().data.runId as string;
    const folderDetail = (await t.api({ method: 'GET', url: `/v1/test-runs/${folderRun}` })).json().data;
    expect(folderDetail).toMatchObject({ testRevisionId: null, vars: null, parameters: null });
    expect((await cancel(folderRun)).statusCode).toBe(200);
  });

  it('refuses more than 100 tests and answers 429 when the backlog is full', async () => {
    const big = await createTest(t, { name: 'big', directory: true });
    const leaves: string[] = [];
    for (let index = 0; index < 101; index += 1)
      leaves.push(
        await createTest(t, { ...apiTest(`big ${index}`, 'http://127.0.0.1:9/'), parentTestId: big }),
      );
    advance(11_000);
    const tooMany = await bulk({ testIds: [big] });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toMatch(/at most 100/);
    const exactly = await bulk({ testIds: leaves.slice(0, 100) });
    expect(exactly.statusCode).toBe(200);
    expect(exactly.json().data.totalTests).toBe(100);
    expect((await cancel(exactly.json().data.runId)).statusCode).toBe(200);

    // Nothing runs here, so pending runs pile up to the documented backlog limit of 50.
    for (let index = 0; index < 50; index += 1)
      expect((await trigger(leaves[index] as string)).statusCode).toBe(200);
    const over = await trigger(leaves[50] as string);
    expect(over.statusCode).toBe(429);
    expect(over.json().message).toBe('concurrency limit exceeded');
  });
});
