import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCall,
  createApiKey,
  createTest,
  createTestApp,
  databaseKinds,
  login,
  type TestApp,
} from '../helper.ts';

const unknownId = '00000000-0000-4000-8000-000000000000';
const invalidKey = { message: 'Invalid API key', code: 'INVALID_API_KEY' };

const listNames = async (app: FastifyInstance, headers: Record<string, string>) => {
  const response = await app.inject({ method: 'GET', url: '/v1/tests', headers });
  expect(response.statusCode).toBe(200);
  return (response.json().children as Array<{ name: string }>).map((test) => test.name);
};

describe.each(databaseKinds)('authentication and tenancy on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  const inject = (options: InjectOptions) => t.app.inject(options);
  const call = (options: InjectOptions) => consoleCall(t.app, cookie, options);

  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  describe('401 Invalid API key', () => {
    const badKeys = () => [
      {},
      { 'x-api-key': '' },
      { 'x-api-key': 'not-a-key' },
      { 'x-api-key': `sd_${'0'.repeat(48)}` },
      { 'x-api-key': t.bootstrap.apiKey.toUpperCase() },
      { 'x-api-key': `${t.bootstrap.apiKey} ` },
    ];

    it('for a missing or unknown key on project, organization and changing routes', async () => {
      for (const key of badKeys()) {
        for (const [method, url] of [
          ['GET', '/v1/tests'],
          ['POST', '/v1/tests/bulk-update-status'],
          ['GET', '/v1/email-inboxes'],
          ['GET', '/v1/email-inboxes/limits'],
          ['HEAD', '/v1/email-inboxes/limits'],
        ] as const) {
          const response = await inject({
            method,
            url,
            headers: { ...key, 'x-project-id': t.bootstrap.projectId },
            ...(method === 'POST' ? { payload: { testIds: [unknownId], status: 'active' } } : {}),
          });
          expect(response.statusCode, `${method} ${url} ${JSON.stringify(key)}`).toBe(401);
          if (method !== 'HEAD') expect(response.json()).toEqual(invalidKey);
        }
      }
    });

    it('is decided before the project: no key and no project is still 401', async () => {
      const response = await inject({ method: 'GET', url: '/v1/tests' });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(invalidKey);
    });

    it('on the very next request after the key is revoked', async () => {
      const key = await createApiKey(t, ['tests:read'], 'to revoke');
      const headers = { 'x-api-key': key, 'x-project-id': t.bootstrap.projectId };
      expect((await inject({ method: 'GET', url: '/v1/tests', headers })).statusCode).toBe(200);
      const id = (
        (await call({ method: 'GET', url: '/console/v1/api-keys' })).json().data as Array<{
          id: string;
          name: string;
        }>
      ).find((k) => k.name === 'to revoke')?.id;
      expect((await call({ method: 'POST', url: `/console/v1/api-keys/${id}/revoke` })).statusCode).toBe(200);
      const after = await inject({ method: 'GET', url: '/v1/tests', headers });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(invalidKey);
    });

    it('on the very next request after the key is deleted', async () => {
      const key = await createApiKey(t, ['emailInbox:read'], 'to delete');
      const headers = { 'x-api-key': key };
      expect((await inject({ method: 'GET', url: '/v1/email-inboxes', headers })).statusCode).toBe(200);
      const id = (
        (await call({ method: 'GET', url: '/console/v1/api-keys' })).json().data as Array<{
          id: string;
          name: string;
        }>
      ).find((k) => k.name === 'to delete')?.id;
      expect((await call({ method: 'DELETE', url: `/console/v1/api-keys/${id}` })).statusCode).toBe(200);
      const after = await inject({ method: 'GET', url: '/v1/email-inboxes', headers });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(invalidKey);
    });
  });

  describe('403 for a missing scope, with the chain rules', () => {
    const cases: Array<{ scopes: string[]; method: 'GET' | 'POST'; url: string; allowed: boolean }> = [
      { scopes: ['testRuns:read'], method: 'GET', url: '/v1/tests', allowed: false },
      { scopes: ['emailInbox:read'], method: 'GET', url: '/v1/tests', allowed: false },
      { scopes: ['tests:read'], method: 'GET', url: '/v1/tests', allowed: true },
      // Every /v1/tests route also needs tests:read.
      { scopes: ['tests:update'], method: 'POST', url: '/v1/tests/bulk-update-status', allowed: false },
      { scopes: ['tests:read'], method: 'POST', url: '/v1/tests/bulk-update-status', allowed: false },
      {
        scopes: ['tests:read', 'tests:update'],
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        allowed: true,
      },
      { scopes: ['tests:create'], method: 'POST', url: '/v1/tests', allowed: false },
      { scopes: ['tests:read', 'tests:update'], method: 'POST', url: '/v1/tests', allowed: false },
      // Every /v1/test-runs route needs testRuns:read.
      { scopes: ['tests:read'], method: 'GET', url: '/v1/test-runs', allowed: false },
      { scopes: ['tests:read', 'tests:cancel'], method: 'GET', url: '/v1/test-runs', allowed: false },
      { scopes: ['testRuns:read'], method: 'GET', url: '/v1/test-runs', allowed: true },
      { scopes: ['tests:read'], method: 'GET', url: '/v1/email-inboxes', allowed: false },
      { scopes: ['emailInbox:delete'], method: 'GET', url: '/v1/email-inboxes', allowed: false },
      { scopes: ['emailInbox:read'], method: 'GET', url: '/v1/email-inboxes', allowed: true },
    ];

    it('answers 403 with an empty message when a required scope is missing', async () => {
      for (const { scopes, method, url, allowed } of cases) {
        const key = await createApiKey(t, scopes, scopes.join('+'));
        const response = await inject({
          method,
          url,
          headers: { 'x-api-key': key, 'x-project-id': t.bootstrap.projectId },
          ...(url === '/v1/tests/bulk-update-status'
            ? { payload: { testIds: [unknownId], status: 'active' } }
            : {}),
        });
        const label = `${scopes.join('+')} ${method} ${url}`;
        if (allowed) {
          expect(response.statusCode, label).not.toBe(401);
          expect(response.statusCode, label).not.toBe(403);
        } else {
          expect(response.statusCode, label).toBe(403);
          expect(response.json(), label).toEqual({ message: '', code: 'MISSING_SCOPE' });
        }
      }
    });

    it('changes nothing when refused', async () => {
      const id = (await createTest(t, { name: 'scope-guarded', status: 'draft' }, { headers: t.headers })).id;
      const readOnly = await createApiKey(t, ['tests:read'], 'read only');
      const refused = await inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: { 'x-api-key': readOnly, 'x-project-id': t.bootstrap.projectId },
        payload: { testIds: [id], status: 'archived' },
      });
      expect(refused.statusCode).toBe(403);
      const detail = await inject({ method: 'GET', url: `/v1/tests/${id}`, headers: t.headers });
      expect(detail.json().test.status).toBe('draft');
    });
  });

  describe('project and branch', () => {
    it('400 No active project without x-project-id', async () => {
      for (const [method, url] of [
        ['GET', '/v1/tests'],
        ['POST', '/v1/tests/bulk-update-status'],
        ['GET', '/v1/test-runs'],
      ] as const) {
        const response = await inject({
          method,
          url,
          headers: { 'x-api-key': t.bootstrap.apiKey },
          ...(method === 'POST' ? { payload: { testIds: [unknownId], status: 'active' } } : {}),
        });
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toEqual({ message: 'No active project', code: 'NO_ACTIVE_PROJECT' });
      }
    });

    it("404 in the spec's words for a project or branch id that is not a UUID", async () => {
      const project = await inject({
        method: 'GET',
        url: '/v1/tests',
        headers: { 'x-api-key': t.bootstrap.apiKey, 'x-project-id': 'default' },
      });
      expect(project.statusCode).toBe(404);
      expect(project.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
      const branch = await inject({
        method: 'GET',
        url: '/v1/tests',
        headers: { ...t.headers, 'x-branch-id': 'main' },
      });
      expect(branch.statusCode).toBe(404);
      expect(branch.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
      const path = await inject({ method: 'GET', url: '/v1/tests/not-a-uuid', headers: t.headers });
      expect(path.statusCode).toBe(400);
      expect(path.json().message).toMatch(/testId/);
    });

    it('404 Project not found for an unknown project', async () => {
      const response = await inject({
        method: 'GET',
        url: '/v1/tests',
        headers: { 'x-api-key': t.bootstrap.apiKey, 'x-project-id': unknownId },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
    });

    it('404 Branch not found for a branch of another project or an unknown branch', async () => {
      const other = (
        await call({ method: 'POST', url: '/console/v1/projects', payload: { name: 'Second' } })
      ).json().data as { id: string; defaultBranchId: string };
      for (const branchId of [other.defaultBranchId, unknownId]) {
        const response = await inject({
          method: 'GET',
          url: '/v1/tests',
          headers: { ...t.headers, 'x-branch-id': branchId },
        });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
      }
    });

    it('uses the default branch when x-branch-id is absent, and the named branch when present', async () => {
      const feature = (
        await call({
          method: 'POST',
          url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
          payload: { name: 'feature-auth' },
        })
      ).json().data.id as string;
      await createTest(
        t,
        { name: 'only-on-feature', status: 'draft' },
        { headers: { ...t.headers, 'x-branch-id': feature } },
      );
      await createTest(
        t,
        { name: 'only-on-main', status: 'draft' },
        { headers: { ...t.headers, 'x-branch-id': t.bootstrap.branchId } },
      );

      const byDefault = await listNames(t.app, t.headers);
      expect(byDefault).toContain('only-on-main');
      expect(byDefault).not.toContain('only-on-feature');
      const onFeature = await listNames(t.app, { ...t.headers, 'x-branch-id': feature });
      expect(onFeature).toContain('only-on-feature');
      expect(onFeature).not.toContain('only-on-main');
    });
  });

  describe('subscription', () => {
    it('403 LICENSE_REQUIRED on changing requests while inactive; GETs still work', async () => {
      const id = (await createTest(t, { name: 'licensed', status: 'draft' }, { headers: t.headers })).id;
      expect(
        (await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: false } }))
          .statusCode,
      ).toBe(200);
      try {
        const change = await inject({
          method: 'POST',
          url: '/v1/tests/bulk-update-status',
          headers: t.headers,
          payload: { testIds: [id], status: 'active' },
        });
        expect(change.statusCode).toBe(403);
        expect(change.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
        const form = new FormData();
        form.append('testData', JSON.stringify({ name: 'refused' }));
        const create = await inject({ method: 'POST', url: '/v1/tests', headers: t.headers, payload: form });
        expect(create.statusCode).toBe(403);
        expect(create.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });

        const list = await inject({ method: 'GET', url: '/v1/tests', headers: t.headers });
        expect(list.statusCode).toBe(200);
        const detail = await inject({ method: 'GET', url: `/v1/tests/${id}`, headers: t.headers });
        expect(detail.statusCode).toBe(200);
        expect(detail.json().test.status).toBe('draft');
        expect(await listNames(t.app, t.headers)).not.toContain('refused');
        const inboxes = await inject({ method: 'GET', url: '/v1/email-inboxes', headers: t.headers });
        expect(inboxes.statusCode).toBe(200);
        // Inbox deletion is a changing request too (organization route, no project).
        const deleteInbox = await inject({
          method: 'DELETE',
          url: `/v1/email-inboxes/${unknownId}`,
          headers: { 'x-api-key': t.bootstrap.apiKey },
        });
        expect(deleteInbox.statusCode).toBe(403);
        expect(deleteInbox.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
      } finally {
        await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: true } });
      }
      const again = await inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: t.headers,
        payload: { testIds: [id], status: 'active' },
      });
      expect(again.statusCode).toBe(200);
      const deleteInbox = await inject({
        method: 'DELETE',
        url: `/v1/email-inboxes/${unknownId}`,
        headers: { 'x-api-key': t.bootstrap.apiKey },
      });
      expect(deleteInbox.statusCode).toBe(404);
    });
  });

  describe('cross-organization isolation', () => {
    let second: { id: string; projectId: string; branchId: string };
    let secondKey: string;
    let secondCookie: string;

    beforeAll(async () => {
      const created = await call({
        method: 'POST',
        url: '/console/v1/organizations',
        payload: {
          name: 'Tenant B',
          ownerEmail: 'owner@tenant-b.example',
          ownerPassword: 'tenant-b-password',
        },
      });
      expect(created.statusCode).toBe(201);
      second = created.json().data;
      secondCookie = await login(t.app, 'owner@tenant-b.example', 'tenant-b-password');
      const key = await consoleCall(t.app, secondCookie, {
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: {
          name: 'tenant b',
          scopes: [
            'tests:read',
            'tests:create',
            'tests:update',
            'tests:delete',
            'emailInbox:read',
            'testRuns:read',
          ],
        },
      });
      secondKey = key.json().data.key;
    });

    it("404 Project not found for the other organization's project, both ways", async () => {
      const intoFirst = await inject({
        method: 'GET',
        url: '/v1/tests',
        headers: { 'x-api-key': secondKey, 'x-project-id': t.bootstrap.projectId },
      });
      expect(intoFirst.statusCode).toBe(404);
      expect(intoFirst.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
      const intoSecond = await inject({
        method: 'GET',
        url: '/v1/tests',
        headers: { 'x-api-key': t.bootstrap.apiKey, 'x-project-id': second.projectId },
      });
      expect(intoSecond.statusCode).toBe(404);
      expect(intoSecond.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
      const runs = await inject({
        method: 'GET',
        url: '/v1/test-runs',
        headers: { 'x-api-key': secondKey, 'x-project-id': t.bootstrap.projectId },
      });
      expect(runs.statusCode).toBe(404);
      expect(runs.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });
      // Its own project with the other organization's branch: not found either.
      const foreignBranch = await inject({
        method: 'GET',
        url: '/v1/tests',
        headers: {
          'x-api-key': secondKey,
          'x-project-id': second.projectId,
          'x-branch-id': t.bootstrap.branchId,
        },
      });
      expect(foreignBranch.statusCode).toBe(404);
      expect(foreignBranch.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    });

    it("cannot see or change the other organization's tests: 404 as if absent", async () => {
      const firstTest = (
        await createTest(t, { name: 'tenant-a-secret-test', status: 'draft' }, { headers: t.headers })
      ).id;
      const secondHeaders = { 'x-api-key': secondKey, 'x-project-id': second.projectId };
      await createTest(t, { name: 'tenant-b-test', status: 'draft' }, { headers: secondHeaders });

      expect(await listNames(t.app, secondHeaders)).toEqual(['tenant-b-test']);
      expect(await listNames(t.app, t.headers)).not.toContain('tenant-b-test');

      const read = await inject({ method: 'GET', url: `/v1/tests/${firstTest}`, headers: secondHeaders });
      expect(read.statusCode).toBe(404);
      expect(read.body).not.toContain('tenant-a-secret-test');
      const change = await inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: secondHeaders,
        payload: { testIds: [firstTest], status: 'archived' },
      });
      expect(change.statusCode).toBe(404);
      const detail = await inject({ method: 'GET', url: `/v1/tests/${firstTest}`, headers: t.headers });
      expect(detail.statusCode).toBe(200);
      expect(detail.json().test.status).toBe('draft');
    });

    it("the other organization's console sees none of the first one's data", async () => {
      const keys = await consoleCall(t.app, secondCookie, { method: 'GET', url: '/console/v1/api-keys' });
      expect((keys.json().data as Array<{ name: string }>).map((k) => k.name)).toEqual(['tenant b']);
      const projects = await consoleCall(t.app, secondCookie, { method: 'GET', url: '/console/v1/projects' });
      expect((projects.json().data as Array<{ id: string }>).map((p) => p.id)).toEqual([second.projectId]);
      // Its owner cannot set its subscription: the install admin does, which does not affect the first organization.
      const ownRefused = await consoleCall(t.app, secondCookie, {
        method: 'PUT',
        url: '/console/v1/subscription',
        payload: { active: false },
      });
      expect(ownRefused.statusCode).toBe(403);
      expect(ownRefused.json().code).toBe('INSTALL_ADMIN_REQUIRED');
      const lapsed = await call({
        method: 'PUT',
        url: `/console/v1/install/organizations/${second.id}/subscription`,
        payload: { active: false },
      });
      expect(lapsed.statusCode).toBe(200);
      const firstStillLicensed = await inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: t.headers,
        payload: {
          testIds: [
            (await createTest(t, { name: 'still-licensed', status: 'draft' }, { headers: t.headers })).id,
          ],
          status: 'active',
        },
      });
      expect(firstStillLicensed.statusCode).toBe(200);
      const secondRefused = await inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: { 'x-api-key': secondKey, 'x-project-id': second.projectId },
        payload: { testIds: [unknownId], status: 'active' },
      });
      expect(secondRefused.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
    });
  });
});
