import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/modules/runs/index.ts';
import { createTestApp } from '../../helper.ts';
import { apiTest, createTest, type Site, startSite, waitForStatus } from './helpers.ts';

/** Sessions other than our own on the database of `url`. */
async function sessionsOn(url: string): Promise<Array<{ query: string; state: string }>> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    const result = await admin.query(
      "select query, state from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'",
      [name],
    );
    return result.rows;
  } finally {
    await admin.end();
  }
}

/**
 * Clean shutdown: with PostgreSQL and background work, closing the app releases every connection the
 * runs module holds (runner loop, heartbeats, pg-boss, pollers), so dropping the database right
 * after is clean. Vitest fails the file on any unhandled error (57P01 from a leftover client).
 */
describe('closing a PostgreSQL app with background runs', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.close();
  });

  it('closes while a run executes, leaves no session behind, and drops the database cleanly', async () => {
    const t = await createTestApp({
      database: 'postgres',
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const testId = await createTest(t, apiTest('slow', `${site.url}/slow?ms=20000&close=1`));
    const response = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
    expect(response.statusCode).toBe(200);
    const runId = response.json().data.runId as string;
    await waitForStatus(t, runId, ['running']);
    const deadline = Date.now() + 60_000;
    while (!site.hits.get('/slow?ms=20000&close=1') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));

    await t.app.close();
    // Only the test helper's own pool may remain: nothing of pg-boss (LISTEN, workers) or runner.
    const left = await sessionsOn(t.databaseUrl as string);
    expect(left.filter((session) => /pgboss|LISTEN/i.test(session.query))).toEqual([]);
    expect(left.filter((session) => session.state === 'active')).toEqual([]);
    await t.close();
    // Give a late client error (57P01 on a leftover connection) the time to surface.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });

  it('closes right after a trigger (wake-up and claim in flight) and drops cleanly', async () => {
    const t = await createTestApp({
      database: 'postgres',
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const testId = await createTest(t, apiTest('quick', `${site.url}/status?code=200&close=2`));
    const lateId = await createTest(t, apiTest('late', `${site.url}/status?code=200&close=3`));
    const branch = await t.ctx.db
      .selectFrom('branches')
      .select(['id'])
      .where('projectId', '=', t.bootstrap.projectId)
      .executeTakeFirstOrThrow();
    const response = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
    expect(response.statusCode).toBe(200);
    await t.app.close();
    // A late trigger (a schedule firing during shutdown) is stored but opens no new queue.
    const late = await startRun(t.ctx, {
      organizationId: t.bootstrap.organizationId,
      projectId: t.bootstrap.projectId,
      branchId: branch.id,
      testIds: [lateId],
      trigger: { type: 'schedule', scheduleId: 's', scheduleName: 'nightly', scheduleType: 'cron' },
      mode: 'bulk',
    });
    expect(late.status).toBe('pending');
    const left = await sessionsOn(t.databaseUrl as string);
    expect(left.filter((session) => /pgboss|LISTEN/i.test(session.query))).toEqual([]);
    expect(left.filter((session) => session.state === 'active')).toEqual([]);
    await t.close();
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });
});
