import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helper.ts';
import type { paths } from './schema.d.ts';

/**
 * A client generated the way a user would (openapi-typescript types from docs/openapi.json,
 * openapi-fetch calls), against the real service on a real port. It compiles only while the
 * document types these responses, so a route that loses its response schema fails the build.
 */
describe('a generated OpenAPI client', () => {
  let t: TestApp;
  let client: ReturnType<typeof createClient<paths>>;
  /** The document requires `x-project-id` on these routes, so the types ask for it on each call. */
  let header: { 'x-project-id': string };

  beforeAll(async () => {
    t = await createTestApp();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = createClient<paths>({ baseUrl: address, headers: { 'x-api-key': t.bootstrap.apiKey } });
    header = { 'x-project-id': t.bootstrap.projectId };
  });
  afterAll(async () => t?.close());

  it('lists tests, creates one, runs it, reads the run and lists its artifacts', async () => {
    const empty = await client.GET('/v1/tests', { params: { header, query: { limit: 10 } } });
    expect(empty.response.status).toBe(200);
    expect(empty.data?.children).toEqual([]);
    expect(empty.data?.pagination.total).toBe(0);

    const testData = {
      name: 'generated client',
      status: 'active',
      metadata: { type: 'api' },
      steps: [{ name: 'call', action: { name: 'request', method: 'GET', url: 'http://127.0.0.1:9/x' } }],
    };
    const created = await client.POST('/v1/tests', {
      params: { header },
      body: { testData: JSON.stringify(testData) },
      bodySerializer: (body) => {
        const form = new FormData();
        form.append('testData', body.testData);
        return form;
      },
    });
    expect(created.response.status).toBe(200);
    const testId = created.data?.data.id;
    expect(testId).toMatch(/^[0-9a-f-]{36}$/);
    if (!testId) throw new Error('no test id');

    const listed = await client.GET('/v1/tests', { params: { header } });
    expect(listed.data?.children.map((test) => test.name)).toEqual(['generated client']);

    const started = await client.POST('/v1/tests/{testId}/remote-run', {
      params: { header, path: { testId } },
    });
    expect(started.response.status).toBe(200);
    const runId = started.data?.data.runId;
    if (!runId) throw new Error(`no run id: ${JSON.stringify(started.error)}`);

    const run = await client.GET('/v1/test-runs/{runId}', { params: { header, path: { runId } } });
    expect(run.response.status).toBe(200);
    expect(run.data?.data.id).toBe(runId);
    expect(run.data?.data.testId).toBe(testId);
    expect(['pending', 'queued', 'running', 'completed', 'failed']).toContain(run.data?.data.status);

    const artifacts = await client.GET('/v1/test-runs/{runId}/artifacts', {
      params: { header, path: { runId } },
    });
    expect(artifacts.response.status).toBe(200);
    expect(Array.isArray(artifacts.data?.data)).toBe(true);

    // Errors come typed too: an unknown run is a 404 with `{ message }`.
    const missing = await client.GET('/v1/test-runs/{runId}', {
      params: { header, path: { runId: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    const error = missing.error;
    expect(error && 'message' in error ? error.message : undefined).toMatch(/not found/i);
  });
});
