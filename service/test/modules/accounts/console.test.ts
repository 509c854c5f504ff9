import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(databaseKinds)('console API on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  const call = (inject: InjectOptions) => consoleCall(t.app, cookie, inject);

  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  describe('session', () => {
    it('answers 401 without a cookie on every kind of console route', async () => {
      for (const [method, url] of [
        ['GET', '/console/v1/api-keys'],
        ['POST', '/console/v1/api-keys'],
        ['GET', '/console/v1/projects'],
        ['PUT', '/console/v1/subscription'],
        ['POST', '/console/v1/organizations'],
        ['GET', '/console/v1/session'],
      ] as const) {
        const response = await t.app.inject({ method, url, payload: method === 'GET' ? undefined : {} });
        expect(response.statusCode, `${method} ${url}`).toBe(401);
        expect(response.json().message).toMatch(/session/i);
      }
    });

    it('answers 401 to an API key instead of a session', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/console/v1/api-keys',
        headers: { 'x-api-key': t.bootstrap.apiKey },
      });
      expect(response.statusCode).toBe(401);
      const created = await t.app.inject({
        method: 'POST',
        url: '/console/v1/api-keys',
        headers: { 'x-api-key': t.bootstrap.apiKey },
        payload: { name: 'sneaky', scopes: ['tests:read'] },
      });
      expect(created.statusCode).toBe(401);
    });

    it('answers 401 to a forged or unknown session cookie', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/console/v1/session',
        headers: { cookie: 'stepdeck_session=not-a-real-token' },
      });
      expect(response.statusCode).toBe(401);
    });

    it('rejects a wrong password with 401 and no cookie', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/console/v1/session',
        payload: { email: 'admin@localhost', password: 'wrong-password' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ message: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('signs in with an httpOnly cookie, reports the user, and signs out for good', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/console/v1/session',
        payload: { email: 'ADMIN@localhost', password: 'admin-password' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({ email: 'admin@localhost', role: 'owner' });
      const setCookie = String(response.headers['set-cookie']);
      expect(setCookie).toMatch(/^stepdeck_session=/);
      expect(setCookie).toMatch(/HttpOnly/i);
      const session = setCookie.split(';')[0] as string;

      const me = await consoleCall(t.app, session, { method: 'GET', url: '/console/v1/session' });
      expect(me.statusCode).toBe(200);
      expect(me.json().data).toMatchObject({
        email: 'admin@localhost',
        role: 'owner',
        organizationId: t.bootstrap.organizationId,
      });

      const out = await consoleCall(t.app, session, { method: 'DELETE', url: '/console/v1/session' });
      expect(out.statusCode).toBe(200);
      const after = await consoleCall(t.app, session, { method: 'GET', url: '/console/v1/session' });
      expect(after.statusCode).toBe(401);
      // Other sessions of the same user are untouched.
      const mine = await call({ method: 'GET', url: '/console/v1/session' });
      expect(mine.statusCode).toBe(200);
    });
  });

  describe('api keys', () => {
    it('creates a key shown in full once, then lists its 8-character prefix only', async () => {
      const response = await call({
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: { name: 'ci', scopes: ['tests:read', 'testRuns:read', 'tests:read'] },
      });
      expect(response.statusCode).toBe(201);
      const data = response.json().data;
      expect(Object.keys(data).sort()).toEqual(['id', 'key', 'name', 'prefix', 'scopes']);
      expect(data.id).toMatch(uuidPattern);
      expect(data.name).toBe('ci');
      expect(data.key).toMatch(/^sd_[0-9a-f]{48}$/);
      expect(data.key).toHaveLength(51);
      expect(data.prefix).toBe(data.key.slice(0, 8));
      expect(data.scopes).toEqual(['tests:read', 'testRuns:read']);

      const list = await call({ method: 'GET', url: '/console/v1/api-keys' });
      expect(list.statusCode).toBe(200);
      const keys = list.json().data as Array<Record<string, unknown>>;
      const listed = keys.find((key) => key.id === data.id);
      expect(listed).toMatchObject({
        name: 'ci',
        prefix: data.prefix,
        scopes: ['tests:read', 'testRuns:read'],
      });
      expect(String(listed?.prefix)).toHaveLength(8);
      expect(listed).not.toHaveProperty('key');
      expect(list.body).not.toContain(data.key);
      expect(list.body).not.toContain(t.bootstrap.apiKey);
    });

    it('refuses a key without scopes or with an unknown scope (400, naming the field)', async () => {
      const none = await call({
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: { name: 'x', scopes: [] },
      });
      expect(none.statusCode).toBe(400);
      expect(none.json().message).toMatch(/scope/);
      const unknown = await call({
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: { name: 'x', scopes: ['tests:fly'] },
      });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().message).toMatch(/scopes/);
      const missing = await call({ method: 'POST', url: '/console/v1/api-keys', payload: { name: 'x' } });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().message).toMatch(/scopes/);
      const noName = await call({
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: { scopes: ['tests:read'] },
      });
      expect(noName.statusCode).toBe(400);
      expect(noName.json().message).toMatch(/name/);
    });

    it('revokes and deletes keys of its organization; unknown ids are 404', async () => {
      const created = await call({
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: { name: 'short-lived', scopes: ['emailInbox:read'] },
      });
      const { id } = created.json().data;
      const revoke = await call({ method: 'POST', url: `/console/v1/api-keys/${id}/revoke` });
      expect(revoke.statusCode).toBe(200);
      const listed = (await call({ method: 'GET', url: '/console/v1/api-keys' })).json().data as Array<{
        id: string;
        revoked: boolean;
      }>;
      expect(listed.find((key) => key.id === id)?.revoked).toBe(true);

      const removed = await call({ method: 'DELETE', url: `/console/v1/api-keys/${id}` });
      expect(removed.statusCode).toBe(200);
      const after = (await call({ method: 'GET', url: '/console/v1/api-keys' })).json().data as Array<{
        id: string;
      }>;
      expect(after.map((key) => key.id)).not.toContain(id);

      const again = await call({ method: 'DELETE', url: `/console/v1/api-keys/${id}` });
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ message: 'API key not found', code: 'API_KEY_NOT_FOUND' });
      const badId = await call({ method: 'POST', url: '/console/v1/api-keys/not-a-uuid/revoke' });
      expect(badId.statusCode).toBe(400);
      expect(badId.json().message).toMatch(/id/);
    });
  });

  describe('projects and branches', () => {
    it('creates a project with its default branch main and lists both', async () => {
      const created = await call({ method: 'POST', url: '/console/v1/projects', payload: { name: 'Shop' } });
      expect(created.statusCode).toBe(201);
      const project = created.json().data;
      expect(project).toMatchObject({ name: 'Shop' });
      expect(project.id).toMatch(uuidPattern);
      expect(project.defaultBranchId).toMatch(uuidPattern);

      const projects = (await call({ method: 'GET', url: '/console/v1/projects' })).json().data as Array<{
        id: string;
        name: string;
      }>;
      expect(projects.map((p) => p.name)).toEqual(['Default', 'Shop']);
      expect(projects[0]?.id).toBe(t.bootstrap.projectId);

      const branches = await call({ method: 'GET', url: `/console/v1/projects/${project.id}/branches` });
      expect(branches.statusCode).toBe(200);
      expect(branches.json().data).toEqual([
        expect.objectContaining({ id: project.defaultBranchId, name: 'main', isDefault: true }),
      ]);
    });

    it('creates a branch, refuses a duplicate name (409) and an unknown project (404)', async () => {
      const url = `/console/v1/projects/${t.bootstrap.projectId}/branches`;
      const created = await call({ method: 'POST', url, payload: { name: 'feature-x' } });
      expect(created.statusCode).toBe(201);
      expect(created.json().data).toMatchObject({
        name: 'feature-x',
        sourceBranchId: t.bootstrap.branchId,
        isDefault: false,
      });
      const duplicate = await call({ method: 'POST', url, payload: { name: 'feature-x' } });
      expect(duplicate.statusCode).toBe(409);
      const names = ((await call({ method: 'GET', url })).json().data as Array<{ name: string }>).map(
        (b) => b.name,
      );
      expect(names).toEqual(['main', 'feature-x']);

      const unknown = await call({
        method: 'POST',
        url: '/console/v1/projects/00000000-0000-4000-8000-000000000000/branches',
        payload: { name: 'y' },
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
      const badSource = await call({
        method: 'POST',
        url,
        payload: { name: 'z', sourceBranchId: '00000000-0000-4000-8000-000000000000' },
      });
      expect(badSource.statusCode).toBe(404);
      expect(badSource.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    });
  });

  describe('tags', () => {
    it('creates, lists and deletes tags', async () => {
      const created = await call({ method: 'POST', url: '/console/v1/tags', payload: { name: 'smoke' } });
      expect(created.statusCode).toBe(201);
      const tag = created.json().data;
      expect(Object.keys(tag).sort()).toEqual(['id', 'name']);
      expect(tag.name).toBe('smoke');
      const duplicate = await call({ method: 'POST', url: '/console/v1/tags', payload: { name: 'smoke' } });
      expect(duplicate.statusCode).toBe(409);
      const list = await call({ method: 'GET', url: '/console/v1/tags' });
      expect(list.json().data).toEqual([{ id: tag.id, name: 'smoke' }]);
      const removed = await call({ method: 'DELETE', url: `/console/v1/tags/${tag.id}` });
      expect(removed.statusCode).toBe(200);
      expect((await call({ method: 'GET', url: '/console/v1/tags' })).json().data).toEqual([]);
      const again = await call({ method: 'DELETE', url: `/console/v1/tags/${tag.id}` });
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({ message: 'Tag not found', code: 'TAG_NOT_FOUND' });
    });
  });

  describe('subscription and organization', () => {
    it('switches the subscription off and on', async () => {
      const off = await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: false } });
      expect(off.statusCode).toBe(200);
      expect(off.json().data).toEqual({ active: false });
      const org = await call({ method: 'GET', url: '/console/v1/organization' });
      expect(org.json().data).toMatchObject({ id: t.bootstrap.organizationId, subscriptionActive: false });
      const on = await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: true } });
      expect(on.json().data).toEqual({ active: true });
      const bad = await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: 'yes' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toMatch(/active/);
    });
  });

  describe('users and roles', () => {
    it('adds users; a member reads but cannot change (403)', async () => {
      const created = await call({
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'member@example.com', password: 'member-password', role: 'member' },
      });
      expect(created.statusCode).toBe(201);
      expect(created.json().data).toMatchObject({ email: 'member@example.com', role: 'member' });
      expect(created.body).not.toContain('member-password');
      const duplicate = await call({
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'member@example.com', password: 'member-password', role: 'member' },
      });
      expect(duplicate.statusCode).toBe(409);
      const badRole = await call({
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'x@example.com', password: 'member-password', role: 'god' },
      });
      expect(badRole.statusCode).toBe(400);
      expect(badRole.json().message).toMatch(/role/);

      const users = (await call({ method: 'GET', url: '/console/v1/users' })).json().data as Array<{
        email: string;
        role: string;
      }>;
      expect(users.map((u) => [u.email, u.role])).toEqual([
        ['admin@localhost', 'owner'],
        ['member@example.com', 'member'],
      ]);
      expect(JSON.stringify(users)).not.toMatch(/password/i);

      const member = await login(t.app, 'member@example.com', 'member-password');
      for (const url of [
        '/console/v1/api-keys',
        '/console/v1/projects',
        '/console/v1/tags',
        '/console/v1/users',
      ]) {
        const read = await consoleCall(t.app, member, { method: 'GET', url });
        expect(read.statusCode, url).toBe(200);
      }
      const changes: InjectOptions[] = [
        { method: 'POST', url: '/console/v1/api-keys', payload: { name: 'm', scopes: ['tests:read'] } },
        { method: 'POST', url: '/console/v1/projects', payload: { name: 'P' } },
        { method: 'POST', url: '/console/v1/tags', payload: { name: 't' } },
        {
          method: 'POST',
          url: '/console/v1/users',
          payload: { email: 'y@example.com', password: 'password-1', role: 'admin' },
        },
        {
          method: 'POST',
          url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
          payload: { name: 'b' },
        },
      ];
      for (const change of changes) {
        const response = await consoleCall(t.app, member, change);
        expect(response.statusCode, `${change.method} ${change.url}`).toBe(403);
        expect(response.json().message).toMatch(/admin or owner/);
      }
      // The subscription is the install admins' to set, which the answer says.
      const subscription = await consoleCall(t.app, member, {
        method: 'PUT',
        url: '/console/v1/subscription',
        payload: { active: false },
      });
      expect(subscription.statusCode).toBe(403);
      expect(subscription.json()).toMatchObject({ code: 'INSTALL_ADMIN_REQUIRED' });
      expect(subscription.json().message).toMatch(/install administrator/);
      // Nothing was changed by the refused calls.
      const projects = (await call({ method: 'GET', url: '/console/v1/projects' })).json().data as unknown[];
      expect(projects.some((p) => (p as { name: string }).name === 'P')).toBe(false);
      const org = await call({ method: 'GET', url: '/console/v1/organization' });
      expect(org.json().data.subscriptionActive).toBe(true);
    });

    it('lets an admin change things but not add an owner or create organizations', async () => {
      await call({
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'admin2@example.com', password: 'admin2-password', role: 'admin' },
      });
      const admin = await login(t.app, 'admin2@example.com', 'admin2-password');
      const tag = await consoleCall(t.app, admin, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: 'a' },
      });
      expect(tag.statusCode).toBe(201);
      const owner = await consoleCall(t.app, admin, {
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'owner2@example.com', password: 'owner2-password', role: 'owner' },
      });
      expect(owner.statusCode).toBe(403);
      const org = await consoleCall(t.app, admin, {
        method: 'POST',
        url: '/console/v1/organizations',
        payload: { name: 'Team', ownerEmail: 'team@example.com', ownerPassword: 'team-password' },
      });
      expect(org.statusCode).toBe(403);
    });
  });

  describe('organizations', () => {
    it('lets the install owner create another organization, whose owner cannot create more', async () => {
      const created = await call({
        method: 'POST',
        url: '/console/v1/organizations',
        payload: {
          name: 'Second team',
          ownerEmail: 'owner@second.example',
          ownerPassword: 'second-password',
        },
      });
      expect(created.statusCode).toBe(201);
      const data = created.json().data;
      expect(Object.keys(data).sort()).toEqual(['branchId', 'id', 'projectId']);
      expect(data.id).not.toBe(t.bootstrap.organizationId);

      const second = await login(t.app, 'owner@second.example', 'second-password');
      const projects = await consoleCall(t.app, second, { method: 'GET', url: '/console/v1/projects' });
      expect(projects.json().data).toEqual([
        expect.objectContaining({ id: data.projectId, name: 'Default', defaultBranchId: data.branchId }),
      ]);
      const branches = await consoleCall(t.app, second, {
        method: 'GET',
        url: `/console/v1/projects/${data.projectId}/branches`,
      });
      expect(branches.json().data).toEqual([expect.objectContaining({ id: data.branchId, name: 'main' })]);

      // Its owner sees none of the first organization's keys, users, projects or tags.
      const keys = await consoleCall(t.app, second, { method: 'GET', url: '/console/v1/api-keys' });
      expect(keys.json().data).toEqual([]);
      const users = await consoleCall(t.app, second, { method: 'GET', url: '/console/v1/users' });
      expect((users.json().data as Array<{ email: string }>).map((u) => u.email)).toEqual([
        'owner@second.example',
      ]);
      const firstBranches = await consoleCall(t.app, second, {
        method: 'GET',
        url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
      });
      expect(firstBranches.statusCode).toBe(404);
      expect(firstBranches.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
      const firstKeyId = (
        (await call({ method: 'GET', url: '/console/v1/api-keys' })).json().data as Array<{
          id: string;
        }>
      )[0]?.id;
      const revokeOther = await consoleCall(t.app, second, {
        method: 'POST',
        url: `/console/v1/api-keys/${firstKeyId}/revoke`,
      });
      expect(revokeOther.statusCode).toBe(404);

      const more = await consoleCall(t.app, second, {
        method: 'POST',
        url: '/console/v1/organizations',
        payload: { name: 'Third', ownerEmail: 'third@example.com', ownerPassword: 'third-password' },
      });
      expect(more.statusCode).toBe(403);

      const duplicateOwner = await call({
        method: 'POST',
        url: '/console/v1/organizations',
        payload: { name: 'Again', ownerEmail: 'owner@second.example', ownerPassword: 'second-password' },
      });
      expect(duplicateOwner.statusCode).toBe(409);
    });
  });
});
