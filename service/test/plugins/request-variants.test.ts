import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCsrf,
  createTestApp,
  databaseKinds,
  login,
  type TestApp,
  webSocketRoutes,
} from '../helper.ts';

interface Operation {
  requestBody?: { required?: boolean; content: Record<string, unknown> };
}
type Document = { paths: Record<string, Record<string, Operation>> };

const unknownId = '00000000-0000-4000-8000-00000000abcd';

/**
 * The requests real HTTP clients send, on every operation of the OpenAPI document: no body,
 * an empty body with `Content-Type: application/json`, `{}`, malformed JSON, and project and
 * branch headers that are not UUIDs. None may be a 5xx; an optional or absent body is never
 * refused for being missing; malformed JSON is a 400 naming JSON.
 */
describe.each(databaseKinds)('request variants on every route (%s)', (database) => {
  let t: TestApp;
  let cookie: string;
  let operations: Array<{ method: string; path: string; url: string; operation: Operation }>;

  beforeAll(async () => {
    t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    cookie = await t.consoleCookie();
    const document = (await t.app.inject({ url: '/openapi.json' })).json() as Document;
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        // Every path parameter gets an id of nothing: the request is well-formed, its target absent.
        url: path.replaceAll(/\{[^}]+\}/g, unknownId),
        operation,
      })),
    );
  });
  afterAll(async () => t?.close());

  const ruleOf = (method: string, path: string) =>
    t.app.accessRules.get(`${method} ${path.replaceAll(/\{([^}]+)\}/g, ':$1')}`);

  /** Sends a request with the credentials the route's rule asks for. */
  async function send(
    method: string,
    path: string,
    url: string,
    options: Pick<InjectOptions, 'payload'> & { headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const rule = ruleOf(method, path);
    const credentials: Record<string, string> =
      rule?.kind === 'apiKey' ? t.headers : rule?.kind === 'session' ? { cookie, ...consoleCsrf } : {};
    const response = await t.app.inject({
      method: method as InjectOptions['method'],
      url,
      ...options,
      headers: { ...credentials, ...options.headers },
    });
    // Signing out ends the shared session: sign in again for the next request.
    const signedOut =
      (method === 'DELETE' && path === '/console/v1/session') ||
      (method === 'POST' && path === '/console/v1/sso/sign-out');
    if (signedOut && response.statusCode === 200)
      cookie = await login(t.app, t.bootstrap.adminEmail, t.bootstrap.adminPassword);
    return response;
  }

  const takesNoBody = (operation: Operation) => operation.requestBody?.required !== true;
  // Single sign-on's browser navigations answer their refusals as an HTML page, never about a body.
  const bodyRefusal = (response: LightMyRequestResponse) =>
    response.statusCode === 400 &&
    String(response.headers['content-type']).startsWith('application/json') &&
    /body|JSON/i.test(String(response.json().message));

  it('covers every route that declares an access rule', () => {
    const documented = new Set(operations.map(({ method, path }) => `${method} ${path}`));
    for (const key of t.app.accessRules.keys()) {
      if (webSocketRoutes.includes(key)) continue;
      const [method, url] = key.split(' ');
      expect(documented, key).toContain(`${method} ${url?.replaceAll(/:(\w+)/g, '{$1}')}`);
    }
  });

  it('no body and no content type: never a 5xx, and no refusal of a body the route does not need', async () => {
    for (const { method, path, url, operation } of operations) {
      const response = await send(method, path, url);
      expect(response.statusCode, `${method} ${path}`).toBeLessThan(500);
      if (takesNoBody(operation))
        expect(bodyRefusal(response), `${method} ${path}: ${response.body}`).toBe(false);
    }
  });

  it('an empty body with application/json is the same as no body', async () => {
    for (const { method, path, url, operation } of operations) {
      const bare = await send(method, path, url);
      const empty = await send(method, path, url, {
        payload: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(empty.statusCode, `${method} ${path}: ${empty.body}`).toBeLessThan(500);
      if (takesNoBody(operation)) {
        expect(bodyRefusal(empty), `${method} ${path}: ${empty.body}`).toBe(false);
        // Login and sign-out change state between the two calls; every other route answers alike.
        if (!path.endsWith('/session') && !path.endsWith('/sign-out'))
          expect(empty.statusCode, `${method} ${path}`).toBe(bare.statusCode);
      } else {
        expect(empty.statusCode, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      }
    }
  });

  it('{} is never a 5xx and never refused on a route whose body is optional or absent', async () => {
    for (const { method, path, url, operation } of operations) {
      if (method === 'GET') continue;
      const response = await send(method, path, url, { payload: {} });
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(500);
      if (takesNoBody(operation))
        expect(bodyRefusal(response), `${method} ${path}: ${response.body}`).toBe(false);
    }
  });

  it('malformed JSON is a 400 naming JSON', async () => {
    for (const { method, path, url } of operations) {
      if (method === 'GET') continue;
      const response = await send(method, path, url, {
        payload: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      // A refusal before the body is read (401, 403, 429) is fine too; a body that is read must fail as JSON.
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(500);
      if (response.statusCode === 400) expect(response.json().message, `${method} ${path}`).toMatch(/JSON/);
    }
  });

  it("a project or branch header that is not a UUID gets the spec's 404 on every project route", async () => {
    const projectRoutes = operations.filter(({ method, path }) => {
      const rule = ruleOf(method, path);
      return rule?.kind === 'apiKey' && rule.project === true;
    });
    expect(projectRoutes.length).toBeGreaterThan(30);
    for (const { method, path, url } of projectRoutes) {
      const project = await send(method, path, url, { headers: { 'x-project-id': 'abc' } });
      expect(project.statusCode, `${method} ${path}`).toBe(404);
      expect(project.json(), `${method} ${path}`).toEqual({
        message: 'Project not found',
        code: 'PROJECT_NOT_FOUND',
      });
      const branch = await send(method, path, url, { headers: { 'x-branch-id': 'main' } });
      expect(branch.statusCode, `${method} ${path}`).toBe(404);
      expect(branch.json(), `${method} ${path}`).toEqual({
        message: 'Branch not found',
        code: 'BRANCH_NOT_FOUND',
      });
    }
  });
});
