import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type DatabaseKind, databaseKinds, type TestApp } from '../../helper.ts';

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
