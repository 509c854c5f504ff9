import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCall,
  createTest,
  createTestApp,
  type DatabaseKind,
  databaseKinds,
  type TestApp,
} from '../../helper.ts';

/**
 * "Writing the entry is part of the same transaction as the change": the entry commits with the
 * change or not at all, and a change that failed never has an entry claiming success.
 */
describe.each(databaseKinds)('audit entries commit with their change on %s', (database) => {
  let t: TestApp;
  let owner: string;
  const as = (inject: InjectOptions) => consoleCall(t.app, owner, inject);

  beforeAll(async () => {
    t = await createTestApp({ database });
    owner = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  const entriesOf = (action: string) =>
    t.ctx.db
      .selectFrom('auditLog')
      .select(['id', 'status', 'resourceId'])
      .where('action', '=', action)
      .execute();
  const projectNamed = (name: string) =>
    t.ctx.db.selectFrom('projects').select('id').where('name', '=', name).executeTakeFirst();
  const tagNamed = (name: string) =>
    t.ctx.db.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirst();

  /** A trigger that aborts inserts into `table` (when `when` holds); returns its removal. */
  async function refuseInserts(kind: DatabaseKind, table: string, when: string) {
    const name = `refuse_${table}`;
    if (kind === 'sqlite') {
      await sql
        .raw(
          `create trigger ${name} before insert on "${table}" when ${when} begin select raise(abort, 'refused by test'); end`,
        )
        .execute(t.ctx.db);
      return () => sql.raw(`drop trigger ${name}`).execute(t.ctx.db);
    }
    await sql
      .raw(
        `create function ${name}() returns trigger language plpgsql as $$ begin if ${when} then raise exception 'refused by test'; end if; return new; end $$`,
      )
      .execute(t.ctx.db);
    await sql
      .raw(`create trigger ${name} before insert on "${table}" for each row execute function ${name}()`)
      .execute(t.ctx.db);
    return async () => {
      await sql.raw(`drop trigger ${name} on "${table}"`).execute(t.ctx.db);
      await sql.raw(`drop function ${name}()`).execute(t.ctx.db);
    };
  }

  it('a successful change has exactly one entry, with its outcome (in a transaction and a lone write)', async () => {
    const project = await as({ method: 'POST', url: '/console/v1/projects', payload: { name: 'audited' } });
    expect(project.statusCode, project.body).toBe(201);
    expect(await entriesOf('POST /console/v1/projects')).toEqual([
      { id: expect.any(String), status: 201, resourceId: project.json().data.id },
    ]);
    const tag = await as({ method: 'POST', url: '/console/v1/tags', payload: { name: 'audited-tag' } });
    expect(tag.statusCode, tag.body).toBe(201);
    expect((await entriesOf('POST /console/v1/tags')).map((entry) => entry.status)).toEqual([201]);
  });

  it('when the entry cannot be written inside the change, the change is rolled back', async () => {
    // Only the entry written with the change (status still unknown) is refused; the outcome
    // written afterwards, on its own, is not.
    const allow = await refuseInserts(database, 'auditLog', 'new.status is null');
    try {
      const project = await as({ method: 'POST', url: '/console/v1/projects', payload: { name: 'orphan' } });
      expect(project.statusCode).toBe(500);
      const tag = await as({ method: 'POST', url: '/console/v1/tags', payload: { name: 'orphan-tag' } });
      expect(tag.statusCode).toBe(500);
    } finally {
      await allow();
    }
    expect(await projectNamed('orphan')).toBeUndefined();
    expect(await tagNamed('orphan-tag')).toBeUndefined();
    // Each failed request still has its entry, with the failure, and nothing claims success.
    expect((await entriesOf('POST /console/v1/projects')).map((entry) => entry.status).sort()).toEqual([
      201, 500,
    ]);
    expect((await entriesOf('POST /console/v1/tags')).map((entry) => entry.status).sort()).toEqual([
      201, 500,
    ]);
  });

  it('a change whose transaction fails leaves neither the change nor an entry claiming success', async () => {
    const before = (await entriesOf('POST /console/v1/projects')).length;
    // The project row is written, then its default branch fails: the transaction rolls back.
    const allow = await refuseInserts(database, 'branches', 'true');
    try {
      const failed = await as({ method: 'POST', url: '/console/v1/projects', payload: { name: 'half' } });
      expect(failed.statusCode).toBe(500);
    } finally {
      await allow();
    }
    expect(await projectNamed('half')).toBeUndefined();
    const after = await entriesOf('POST /console/v1/projects');
    expect(after).toHaveLength(before + 1);
    expect(after.filter((entry) => entry.status === 500)).toHaveLength(2);
    expect(after.filter((entry) => entry.status === 201)).toHaveLength(1);
  });

  // The run triggers write their entry themselves, first in the run's transaction.
  it('a remote run and its entry commit together, or neither does', async () => {
    const action = 'POST /v1/tests/:testId/remote-run';
    const runsOf = (testId: string) =>
      t.ctx.db.selectFrom('runs').select(['id', 'status']).where('testId', '=', testId).execute();
    const entriesOfTest = async (testId: string) =>
      (await entriesOf(action)).filter((entry) => entry.resourceId === testId).map((entry) => entry.status);
    const test = await createTest(t, { name: 'audited run', status: 'active', steps: [] });
    const remoteRun = () => t.api({ method: 'POST', url: `/v1/tests/${test.id}/remote-run` });

    // The entry cannot be written inside the run's transaction: no run.
    const allowEntry = await refuseInserts(database, 'auditLog', 'new.status is null');
    try {
      expect((await remoteRun()).statusCode).toBe(500);
    } finally {
      await allowEntry();
    }
    // The run's own insert fails after its entry: the entry goes with it.
    const allowTests = await refuseInserts(database, 'runTests', 'true');
    try {
      expect((await remoteRun()).statusCode).toBe(500);
    } finally {
      await allowTests();
    }
    expect(await runsOf(test.id)).toEqual([]);
    expect((await entriesOfTest(test.id)).sort()).toEqual([500, 500]);

    const started = await remoteRun();
    expect(started.statusCode, started.body).toBe(200);
    // Refused inside the transaction (the run is still pending): its entry says so, no second run.
    expect((await remoteRun()).statusCode).toBe(409);
    expect(await runsOf(test.id)).toEqual([{ id: started.json().data.runId, status: 'pending' }]);
    expect((await entriesOfTest(test.id)).sort()).toEqual([200, 409, 500, 500]);
  });

  it("a schedule's trigger-now and its entry commit together, or neither does", async () => {
    const action = 'POST /console/v1/schedules/:id/trigger';
    const test = await createTest(t, { name: 'scheduled run', status: 'active', steps: [] });
    const schedule = await as({
      method: 'POST',
      url: '/console/v1/schedules',
      payload: { name: 'audited', projectId: t.bootstrap.projectId, cron: '0 2 * * *', testIds: [test.id] },
    });
    expect(schedule.statusCode, schedule.body).toBe(201);
    const triggerNow = () =>
      as({ method: 'POST', url: `/console/v1/schedules/${schedule.json().data.id}/trigger` });
    const runsOf = () =>
      t.ctx.db.selectFrom('runs').select('id').where('scheduleId', '=', schedule.json().data.id).execute();

    const allow = await refuseInserts(database, 'auditLog', 'new.status is null');
    try {
      expect((await triggerNow()).statusCode).toBe(500);
    } finally {
      await allow();
    }
    expect(await runsOf()).toEqual([]);
    const started = await triggerNow();
    expect(started.statusCode, started.body).toBe(200);
    expect((await triggerNow()).statusCode).toBe(409);
    expect(await runsOf()).toEqual([{ id: started.json().data.runId }]);
    expect((await entriesOf(action)).map((entry) => entry.status).sort()).toEqual([200, 409, 500]);
  });

  it('a request refused before any write still gets its entry, with its status', async () => {
    const refused = await as({ method: 'POST', url: '/console/v1/tags', payload: { name: '' } });
    expect(refused.statusCode).toBe(400);
    const conflict = await as({ method: 'POST', url: '/console/v1/tags', payload: { name: 'audited-tag' } });
    expect(conflict.statusCode).toBe(409);
    const statuses = (await entriesOf('POST /console/v1/tags')).map((entry) => entry.status).sort();
    expect(statuses).toEqual([201, 400, 409, 500]);
    // Nothing is left without its outcome.
    const open = await t.ctx.db.selectFrom('auditLog').select('id').where('status', 'is', null).execute();
    expect(open).toEqual([]);
  });
});
