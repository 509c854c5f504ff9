import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../src/errors/catalogue.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../helper.ts';

const json = { 'content-type': 'application/json' };

describe.each(databaseKinds)('bad input on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  const call = (inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const tagNames = async () =>
    ((await call({ method: 'GET', url: '/console/v1/tags' })).json().data as Array<{ name: string }>).map(
      (tag) => tag.name,
    );

  beforeAll(async () => {
    t = await createTestApp({ database, env: { BODY_LIMIT_BYTES: '4096' } });
    cookie = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  /** Every bad-input answer is a JSON 4xx with a non-empty message. */
  const expectClientError = (response: {
    statusCode: number;
    headers: Record<string, unknown>;
    json(): unknown;
  }) => {
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
    const body = response.json() as { message: string; code: string };
    expect(typeof body.message).toBe('string');
    expect(Object.keys(errorCatalogue)).toContain(body.code);
    expect(body.message.length).toBeGreaterThan(0);
    return body.message;
  };

  it('malformed JSON is 400 naming JSON, and echoes none of the body', async () => {
    const response = await call({
      method: 'POST',
      url: '/console/v1/tags',
      headers: json,
      payload: '{"name": "secret-fragment',
    });
    expect(response.statusCode).toBe(400);
    expect(expectClientError(response)).toMatch(/JSON/);
    expect(response.body).not.toContain('secret-fragment');
    const login = await t.app.inject({
      method: 'POST',
      url: '/console/v1/session',
      headers: json,
      payload: '{"email":"admin@localhost","password":"admin-password"',
    });
    expect(login.statusCode).toBe(400);
    expect(login.body).not.toContain('admin-password');
  });

  it('an empty JSON body, or JSON of the wrong shape, is 400 naming the problem', async () => {
    const empty = await call({ method: 'POST', url: '/console/v1/tags', headers: json, payload: '' });
    expect(empty.statusCode).toBe(400);
    expect(expectClientError(empty)).toMatch(/empty/i);
    const array = await call({ method: 'POST', url: '/console/v1/tags', headers: json, payload: '[]' });
    expect(array.statusCode).toBe(400);
    expect(expectClientError(array)).toMatch(/body/);
    const wrongType = await call({ method: 'POST', url: '/console/v1/tags', payload: { name: 42 } });
    expect(wrongType.statusCode).toBe(400);
    expect(expectClientError(wrongType)).toMatch(/name/);
    const tooLong = await call({
      method: 'POST',
      url: '/console/v1/tags',
      payload: { name: 'x'.repeat(200) },
    });
    expect(tooLong.statusCode).toBe(400);
    expect(expectClientError(tooLong)).toMatch(/name.*128/);
  });

  it('an unsupported content type is 415 naming the type', async () => {
    for (const type of ['application/xml', 'application/x-www-form-urlencoded']) {
      const response = await call({
        method: 'POST',
        url: '/console/v1/tags',
        headers: { 'content-type': type },
        payload: 'name=x',
      });
      expect(response.statusCode, type).toBe(415);
      expect(expectClientError(response)).toContain(type);
    }
  });

  it('an oversize body is 413 and nothing is written', async () => {
    const response = await call({
      method: 'POST',
      url: '/console/v1/tags',
      headers: json,
      payload: JSON.stringify({ name: 'big', padding: 'x'.repeat(8000) }),
    });
    expect(response.statusCode).toBe(413);
    expect(expectClientError(response)).toMatch(/too large/i);
    expect(await tagNames()).not.toContain('big');
  });

  it('a multipart form field over the body limit is 413 naming the field, and nothing is written', async () => {
    const form = new FormData();
    form.append('testData', JSON.stringify({ name: 'too big a form', padding: 'x'.repeat(8000) }));
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests',
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expect(response.statusCode).toBe(413);
    expect(expectClientError(response)).toBe(
      'Request body is too large: form field "testData" exceeds the body limit',
    );
    const listed = await t.api({ method: 'GET', url: '/v1/tests?name=too%20big' });
    expect(listed.json().children).toEqual([]);
  });

  it('a Content-Length that lies is 400', async () => {
    const response = await call({
      method: 'POST',
      url: '/console/v1/tags',
      headers: { ...json, 'content-length': '5' },
      payload: '{"name":"liar"}',
    });
    expect(response.statusCode).toBe(400);
    expectClientError(response);
    expect(await tagNames()).not.toContain('liar');
  });

  it('a bad UUID in a path parameter is 400 naming the parameter', async () => {
    for (const url of [
      '/console/v1/tags/not-a-uuid',
      '/console/v1/api-keys/123',
      "/console/v1/api-keys/'%20or%201=1",
    ]) {
      const response = await call({ method: 'DELETE', url });
      expect(response.statusCode, url).toBe(400);
      expect(expectClientError(response)).toMatch(/params\.id.*UUID/);
    }
    const branches = await call({ method: 'GET', url: '/console/v1/projects/zzz/branches' });
    expect(branches.statusCode).toBe(400);
    expect(expectClientError(branches)).toMatch(/projectId.*UUID/);
  });

  it('an unknown route is a 404 JSON error naming the route', async () => {
    for (const [method, url] of [
      ['GET', '/nothing-here'],
      ['GET', '/v1/nothing-here'],
      ['POST', '/console/v1/nothing-here'],
      ['PATCH', '/console/v1/tags'],
    ] as const) {
      const response = await t.app.inject({ method, url, headers: t.headers });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(expectClientError(response)).toBe(`Route ${method} ${url} not found`);
    }
  });

  it('serves the OpenAPI document with the console routes, and the docs UI', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\./);
    for (const [path, method] of [
      ['/console/v1/session', 'post'],
      ['/console/v1/session', 'delete'],
      ['/console/v1/api-keys', 'post'],
      ['/console/v1/api-keys', 'get'],
      ['/console/v1/api-keys/{id}/revoke', 'post'],
      ['/console/v1/api-keys/{id}', 'delete'],
      ['/console/v1/projects', 'post'],
      ['/console/v1/projects/{projectId}/branches', 'get'],
      ['/console/v1/tags', 'post'],
      ['/console/v1/tags/{id}', 'delete'],
      ['/console/v1/subscription', 'put'],
      ['/console/v1/users', 'post'],
      ['/console/v1/organizations', 'post'],
    ] as const) {
      expect(document.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    // Request schemas come from the zod route schemas.
    expect(JSON.stringify(document.paths['/console/v1/api-keys']?.post)).toContain('tests:read');
    const docs = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toMatch(/swagger/i);
  });
});
