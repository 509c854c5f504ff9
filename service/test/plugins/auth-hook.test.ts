import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { consoleCredentials } from '../../src/modules/accounts/public.ts';
import { apiKeyOnly, projectChange, projectRead } from '../../src/plugins/auth/access.ts';
import { authPlugin, requireApiKey, requireScope } from '../../src/plugins/auth/index.ts';
import { registerErrorHandling } from '../../src/plugins/errors.ts';
import { consoleCall, createApiKey, createTestApp, databaseKinds, type TestApp } from '../helper.ts';

/** The plugin's options as app.ts builds them: the accounts module's lookups over the test's database. */
const authOptions = (t: TestApp) => ({
  clock: systemClock,
  credentials: consoleCredentials({
    db: t.ctx.db,
    clock: systemClock,
    // What app.ts logs as a warning; these apps run with the logger off.
    logError: () => {},
  }),
});

/**
 * The auth hook on its own, over the real database of a bootstrapped install: routes with
 * the access rules of their real namesakes answer with what the hook resolved, so the chosen
 * project, branch and principal are visible (the full-app suite checks the real routes).
 */
async function echoApp(t: TestApp): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  await app.register(authPlugin, authOptions(t));
  app.get('/v1/tests', { config: { access: projectRead('tests:read') } }, async (request) => {
    const { principal, project, branch } = requireScope(request);
    return { organizationId: principal.organizationId, keyName: principal.apiKeyName, project, branch };
  });
  app.post(
    '/v1/tests/bulk-update-status',
    { config: { access: projectChange('tests:read', 'tests:update') } },
    async (request) => ({ project: requireScope(request).project.id }),
  );
  app.get('/v1/email-inboxes', { config: { access: apiKeyOnly(['emailInbox:read']) } }, async (request) => ({
    organizationId: requireApiKey(request).organizationId,
    project: request.project ?? null,
  }));
  await app.ready();
  return app;
}

describe.each(databaseKinds)('auth hook on %s', (database) => {
  let t: TestApp;
  let app: FastifyInstance;
  let cookieHeader: string;
  const get = (headers: Record<string, string>, url = '/v1/tests') =>
    app.inject({ method: 'GET', url, headers } satisfies InjectOptions);

  beforeAll(async () => {
    t = await createTestApp({ database });
    app = await echoApp(t);
    cookieHeader = await t.consoleCookie();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('resolves the project and its default branch when x-branch-id is absent', async () => {
    const response = await get(t.headers);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      organizationId: t.bootstrap.organizationId,
      keyName: 'bootstrap',
      project: {
        id: t.bootstrap.projectId,
        name: 'Default',
        organizationId: t.bootstrap.organizationId,
        defaultBranchId: t.bootstrap.branchId,
      },
      branch: { id: t.bootstrap.branchId, name: 'main', projectId: t.bootstrap.projectId },
    });
  });

  it('uses x-branch-id when it names a branch of that project, else 404 Branch not found', async () => {
    const created = await consoleCall(t.app, cookieHeader, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
      payload: { name: 'feature' },
    });
    const feature = created.json().data.id as string;
    const chosen = await get({ ...t.headers, 'x-branch-id': feature });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json().branch).toEqual({ id: feature, name: 'feature', projectId: t.bootstrap.projectId });

    const other = await consoleCall(t.app, cookieHeader, {
      method: 'POST',
      url: '/console/v1/projects',
      payload: { name: 'Other project' },
    });
    const otherBranch = other.json().data.defaultBranchId as string;
    for (const branchId of [otherBranch, '00000000-0000-4000-8000-000000000000']) {
      const response = await get({ ...t.headers, 'x-branch-id': branchId });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    }
    // The other project with its own branch is fine.
    const ok = await get({ ...t.headers, 'x-project-id': other.json().data.id, 'x-branch-id': otherBranch });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().project.name).toBe('Other project');
  });

  it('accepts project and branch ids in upper case', async () => {
    const response = await get({
      ...t.headers,
      'x-project-id': t.bootstrap.projectId.toUpperCase(),
      'x-branch-id': t.bootstrap.branchId.toUpperCase(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().branch.id).toBe(t.bootstrap.branchId);
  });

  it('does not need a project on organization routes', async () => {
    const response = await get({ 'x-api-key': t.bootstrap.apiKey }, '/v1/email-inboxes');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ organizationId: t.bootstrap.organizationId, project: null });
  });

  it('checks key, then scopes, then project, then branch, then subscription', async () => {
    const noScope = await createApiKey(t, ['emailInbox:read']);
    // Missing key beats everything else.
    expect((await get({ 'x-project-id': 'garbage' })).json()).toEqual({
      message: 'Invalid API key',
      code: 'INVALID_API_KEY',
    });
    // A missing scope beats a missing project.
    const forbidden = await get({ 'x-api-key': noScope });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ message: '', code: 'MISSING_SCOPE' });
    // A missing project beats a bad branch.
    const noProject = await get({ 'x-api-key': t.bootstrap.apiKey, 'x-branch-id': 'garbage' });
    expect(noProject.statusCode).toBe(400);
    expect(noProject.json()).toEqual({ message: 'No active project', code: 'NO_ACTIVE_PROJECT' });
    // Unknown project beats a bad branch.
    const unknown = await get({
      'x-api-key': t.bootstrap.apiKey,
      'x-project-id': '00000000-0000-4000-8000-000000000000',
      'x-branch-id': '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.json()).toEqual({ message: 'Project not found', code: 'PROJECT_NOT_FOUND' });

    await consoleCall(t.app, cookieHeader, {
      method: 'PUT',
      url: '/console/v1/subscription',
      payload: { active: false },
    });
    try {
      const post = await app.inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: t.headers,
      });
      expect(post.statusCode).toBe(403);
      expect(post.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
      // Without a project the project error still comes first.
      const postNoProject = await app.inject({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        headers: { 'x-api-key': t.bootstrap.apiKey },
      });
      expect(postNoProject.json()).toEqual({ message: 'No active project', code: 'NO_ACTIVE_PROJECT' });
      expect((await get(t.headers)).statusCode).toBe(200);
    } finally {
      await consoleCall(t.app, cookieHeader, {
        method: 'PUT',
        url: '/console/v1/subscription',
        payload: { active: true },
      });
    }
    const after = await app.inject({
      method: 'POST',
      url: '/v1/tests/bulk-update-status',
      headers: t.headers,
    });
    expect(after.statusCode).toBe(200);
  });

  it('accepts the key only in x-api-key', async () => {
    const bearer = await get({
      authorization: `Bearer ${t.bootstrap.apiKey}`,
      'x-project-id': t.bootstrap.projectId,
    });
    expect(bearer.statusCode).toBe(401);
    const query = await app.inject({
      method: 'GET',
      url: `/v1/tests?x-api-key=${t.bootstrap.apiKey}`,
      headers: { 'x-project-id': t.bootstrap.projectId },
    });
    expect(query.statusCode).toBe(401);
  });
});

describe('access rules on routes', () => {
  it('refuses to register a /v1 or /console/v1 route that declares no access rule', async () => {
    const t = await createTestApp();
    try {
      for (const url of ['/v1/unlisted', '/console/v1/unlisted']) {
        const app = Fastify({ logger: false });
        await app.register(authPlugin, authOptions(t));
        expect(() => app.get(url, async () => ({ open: true }))).toThrow(
          `Route GET ${url} declares no access rule (config.access)`,
        );
        await app.close();
      }
    } finally {
      await t.close();
    }
  });

  it('records the rule a route declares, and asks none of routes outside /v1 and /console/v1', async () => {
    const t = await createTestApp();
    const app = Fastify({ logger: false });
    try {
      await app.register(authPlugin, authOptions(t));
      app.get('/v1/listed', { config: { access: apiKeyOnly(['tests:read']) } }, async () => ({}));
      app.get('/elsewhere', async () => ({}));
      await app.ready();
      expect(Object.fromEntries(app.accessRules)).toEqual({
        'GET /v1/listed': { kind: 'apiKey', scopes: ['tests:read'] },
      });
      expect((await app.inject({ url: '/v1/listed' })).statusCode).toBe(401);
    } finally {
      await app.close();
      await t.close();
    }
  });
});
