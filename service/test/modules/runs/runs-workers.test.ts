import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helper.ts';
import {
  apiTest,
  createTest,
  type Site,
  setCap,
  startLongApiRun,
  startSite,
  waitForStatus,
} from './helpers.ts';
import { groupMembers, runGroupOf } from './service-process.ts';
import { WorkerProcesses, workerEnv } from './worker-processes.ts';

/** Scale-out: the API process only accepts runs; two `npm run worker` processes execute them. */
describe('PostgreSQL with two worker processes', () => {
  let t: TestApp;
  let site: Site;
  const workers = new WorkerProcesses(() => workerEnv(t));

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ database: 'postgres', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    for (let index = 0; index < 2; index += 1) await workers.start();
  });
  afterAll(async () => {
    await workers.stop();
    await t?.close();
    await site?.close();
  });

  it('executes each run exactly once and holds the concurrency cap across workers', async () => {
    await setCap(t, 2);
    const runIds: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const testId = await createTest(t, apiTest(`slow ${index}`, `${site.url}/slow?ms=1500&n=${index}`));
      const response = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
      expect(response.statusCode).toBe(200);
      runIds.push(response.json().data.runId);
    }
    for (const runId of runIds)
      expect((await waitForStatus(t, runId, ['completed', 'failed'])).status).toBe('completed');
    for (let index = 0; index < 5; index += 1) expect(site.hits.get(`/slow?ms=1500&n=${index}`)).toBe(1);
    expect(site.inFlight.max).toBeLessThanOrEqual(2);
    const runners = await t.ctx.db
      .selectFrom('runs')
      .select(['runnerId'])
      .where('id', 'in', runIds)
      .execute();
    const pids = new Set(runners.map((row) => String(row.runnerId).split(':')[1]));
    for (const pid of pids) expect(workers.pids()).toContain(pid);
    // Artifacts written by a worker are listed by the API process.
    const artifacts = (await t.api({ method: 'GET', url: `/v1/test-runs/${runIds[0]}/artifacts` })).json()
      .data;
    expect(artifacts.map((artifact: { key: string }) => artifact.key)).toContain('test-run.log');
    // Five runs in three waves of two, each a Playwright process: about 25 s quiet, near three
    // times that on a 2-core machine running the browser suites beside it.
  }, 180_000);

  it('cancels from the API process a run executing in a worker', async () => {
    const runId = await startLongApiRun(t, site, 'cancel');
    const group = runGroupOf(workers.all.map((child) => child.pid as number));
    expect(group).toBeDefined();
    const response = await t.api({ method: 'POST', url: `/v1/test-runs/${runId}/cancel` });
    expect(response.statusCode).toBe(200);
    const gone = Date.now() + 15_000;
    while (groupMembers(group as number).length > 0 && Date.now() < gone)
      await new Promise((r) => setTimeout(r, 100));
    expect(groupMembers(group as number)).toEqual([]);
    expect((await waitForStatus(t, runId, ['cancelled'])).cancelledAt).toEqual(expect.any(String));
  });
});
