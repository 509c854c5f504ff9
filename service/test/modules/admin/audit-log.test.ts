import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCall,
  createApiKey,
  createTestApp,
  databaseKinds,
  login,
  type TestApp,
} from '../../helper.ts';
import { manualClock } from '../schedules/fixtures.ts';

interface Entry {
  id: string;
  createdAt: string;
  actor: { type: string; id: string; label: string };
  action: string;
  resourceType: string;
  resourceId: string | null;
  projectId: string | null;
  status: number | null;
  ip: string;
  userAgent: string;
}

describe.each(databaseKinds)('audit log on %s', (database) => {
  let t: TestApp;
  let owner: string;
  let member: string;
  const clock = manualClock('2026-11-23T10:00:00.000Z');
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const entries = async (query = '') => {
    const response = await as(owner, { method: 'GET', url: `/console/v1/audit-log${query}` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: Entry[];
      pagination: { total: number; hasMore: boolean; page: number };
    };
  };

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
    owner = await t.consoleCookie();
    await as(owner, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'member@example.test', password: 'password-123', role: 'member' },
    });
    member = await login(t.app, 'member@example.test', 'password-123');
  });
  afterAll(async () => t?.close());

  it('records a console change with its actor, route, created resource and outcome, never the key', async () => {
    clock.advance(1000);
    const created = await as(owner, {
      method: 'POST',
      url: '/console/v1/api-keys',
      payload: { name: 'deploy', scopes: ['tests:read'] },
      headers: { 'user-agent': 'audit-test/1.0' },
    });
    expect(created.statusCode).toBe(201);
    const { id, key } = created.json().data;
    const [entry] = (await entries()).data;
    expect(entry).toMatchObject({
      actor: { type: 'user', label: 'admin@localhost' },
      action: 'POST /console/v1/api-keys',
      resourceType: 'api-keys',
      resourceId: id,
      status: 201,
      userAgent: 'audit-test/1.0',
      createdAt: clock.now().toISOString(),
    });
    expect(entry?.ip).toBeTruthy();
    const csv = await as(owner, { method: 'GET', url: '/console/v1/audit-log/export?format=csv' });
    const json = await as(owner, { method: 'GET', url: '/console/v1/audit-log/export?format=json' });
    for (const body of [JSON.stringify(await entries()), csv.body, json.body])
      expect(body).not.toContain(key);
  });

  it('records a secret being set without its value, in the list and in both exports', async () => {
    const value = 'hunter2-Ü-!(&-never-logged';
    const set = await as(owner, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'DB_PASSWORD', value },
    });
    expect(set.statusCode, set.body).toBe(201);
    const [entry] = (await entries('?action=secrets')).data;
    expect(entry).toMatchObject({
      action: 'POST /console/v1/projects/:projectId/secrets',
      projectId: t.bootstrap.projectId,
      status: 201,
    });
    const csv = await as(owner, { method: 'GET', url: '/console/v1/audit-log/export?format=csv' });
    const json = await as(owner, { method: 'GET', url: '/console/v1/audit-log/export?format=json' });
    for (const body of [JSON.stringify(await entries()), csv.body, json.body]) {
      expect(body).not.toContain(value);
      expect(body).not.toContain('hunter2');
    }
  });

  it('records an API-key change with the key name and its 8-character prefix', async () => {
    const key = await createApiKey(t, ['tests:read', 'tests:create'], 'ci bot');
    const response = await t.app.inject({
      method: 'POST',
      url: '/console/v1/tags',
      headers: { 'x-api-key': key },
      payload: { name: 'refused' },
    });
    expect(response.statusCode).toBe(401); // a key never reaches a console route: no actor, no entry
    const deleted = await t.api({
      method: 'DELETE',
      url: '/v1/tests/00000000-0000-4000-8000-000000000000',
      headers: { 'x-api-key': key },
    });
    expect(deleted.statusCode).toBe(403); // lacks tests:delete
    const [entry] = (await entries('?action=DELETE%20/v1/tests')).data;
    expect(entry).toMatchObject({
      actor: { type: 'apiKey', label: `ci bot (${key.slice(0, 8)})` },
      action: 'DELETE /v1/tests/:testId',
      resourceType: 'tests',
      resourceId: '00000000-0000-4000-8000-000000000000',
      status: 403,
    });
  });

  it('records a refused member action and a failed change as what they were', async () => {
    const refused = await as(member, { method: 'POST', url: '/console/v1/tags', payload: { name: 'x' } });
    expect(refused.statusCode).toBe(403);
    clock.advance(1000);
    const invalid = await as(owner, { method: 'POST', url: '/console/v1/tags', payload: { name: '' } });
    expect(invalid.statusCode).toBe(400);
    const byMember = (await entries('?actor=member%40example')).data;
    expect(byMember[0]).toMatchObject({ action: 'POST /console/v1/tags', status: 403 });
    const tagEntries = (await entries('?action=POST%20/console/v1/tags')).data;
    expect(tagEntries.map((entry) => entry.status)).toEqual([400, 403]);
  });

  it('keeps the log from members and answers admins with filters and pages', async () => {
    const refused = await as(member, { method: 'GET', url: '/console/v1/audit-log' });
    expect(refused.statusCode).toBe(403);
    expect((await as(member, { method: 'GET', url: '/console/v1/audit-log/export' })).statusCode).toBe(403);

    for (const name of ['one', 'two', 'three']) {
      clock.advance(1000);
      expect(
        (await as(owner, { method: 'POST', url: '/console/v1/tags', payload: { name } })).statusCode,
      ).toBe(201);
    }
    const page1 = await entries('?resource=tags&limit=2');
    expect(page1.data).toHaveLength(2);
    expect(page1.pagination).toMatchObject({ page: 1, hasMore: true });
    const times = page1.data.map((entry) => entry.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const from = new Date(clock.now().getTime() - 1500).toISOString();
    const recent = await entries(`?from=${encodeURIComponent(from)}&resource=tags`);
    expect(recent.data).toHaveLength(2);
    const bad = await as(owner, { method: 'GET', url: '/console/v1/audit-log?from=yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/from/);

    const csv = await as(owner, {
      method: 'GET',
      url: '/console/v1/audit-log/export?format=csv&resource=tags',
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/attachment; filename="audit-log-.*\.csv"/);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'createdAt,actorType,actor,action,resourceType,resourceId,organizationId,projectId,status,ip,userAgent',
    );
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const json = await as(owner, {
      method: 'GET',
      url: '/console/v1/audit-log/export?format=json&resource=tags',
    });
    expect(json.json().length).toBe(lines.length - 1);
  });

  it('lists entries of the same millisecond in the order they happened, newest first', async () => {
    // The clock stands still: every entry below has the same createdAt.
    clock.advance(1000);
    const ids: string[] = [];
    for (let index = 1; index <= 6; index += 1) {
      const created = await as(owner, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: `same-ms-${index}` },
      });
      expect(created.statusCode, created.body).toBe(201);
      ids.push(created.json().data.id);
    }
    const listed = (await entries('?resource=tags&limit=6')).data;
    expect(new Set(listed.map((entry) => entry.createdAt))).toEqual(new Set([clock.now().toISOString()]));
    expect(listed.map((entry) => entry.resourceId)).toEqual([...ids].reverse());
  });

  it('makes no change when its entry cannot be written', async () => {
    await sql`alter table ${sql.table('auditLog')} rename to ${sql.table('auditLogAway')}`.execute(t.ctx.db);
    try {
      const response = await as(owner, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: 'unaudited' },
      });
      expect(response.statusCode).toBe(500);
    } finally {
      await sql`alter table ${sql.table('auditLogAway')} rename to ${sql.table('auditLog')}`.execute(
        t.ctx.db,
      );
    }
    const tags = await as(owner, { method: 'GET', url: '/console/v1/tags' });
    expect(tags.json().data.map((tag: { name: string }) => tag.name)).not.toContain('unaudited');
  });

  it('deletes entries past the retention period (365 days by default)', async () => {
    const before = (await entries()).pagination.total;
    expect(before).toBeGreaterThan(0);
    clock.advance(366 * 24 * 60 * 60 * 1000);
    // Sessions expired meanwhile: a key makes the change that triggers the purge.
    const key = t.bootstrap.apiKey;
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/tests/bulk-delete',
      headers: { 'x-api-key': key, 'x-project-id': t.bootstrap.projectId },
      payload: { testIds: [] },
    });
    expect(response.statusCode).toBeLessThan(500);
    owner = await login(t.app, t.bootstrap.adminEmail, t.bootstrap.adminPassword);
    const after = await entries();
    expect(
      after.data.every(
        (entry) => entry.createdAt >= new Date(clock.now().getTime() - 365 * 864e5).toISOString(),
      ),
    ).toBe(true);
    expect(after.data.some((entry) => entry.action === 'POST /v1/tests/bulk-delete')).toBe(true);
    expect(after.pagination.total).toBeLessThan(before);
  });
});
