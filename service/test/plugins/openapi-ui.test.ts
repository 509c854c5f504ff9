import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helper.ts';

/** Every key of a JSON value, at any depth, with its value. */
function* entries(value: unknown): Generator<[string, unknown]> {
  if (Array.isArray(value)) for (const item of value) yield* entries(item);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      yield [key, inner];
      yield* entries(inner);
    }
}

/** `/docs` reads a 3.0 copy of the document, addressed as the reader reached the service. */
describe('the docs page (Swagger UI)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('gets the document as OpenAPI 3.0 with nullable types, naming the address it was opened at', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/docs/json',
      headers: { host: 'localhost:8080' },
    });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { openapi: string; servers: unknown[]; paths: object };
    expect(document.openapi).toBe('3.0.3');
    expect(document.servers).toEqual([
      { url: 'http://localhost:8080', description: 'This Stepdeck instance' },
    ]);
    let nullable = 0;
    for (const [key, value] of entries(document.paths)) {
      expect(key).not.toBe('propertyNames');
      // The `type` keyword (a property named `type` holds a schema object instead).
      if (key === 'type' && (typeof value === 'string' || Array.isArray(value))) {
        expect(typeof value, JSON.stringify(value)).toBe('string');
        expect(value).not.toBe('null');
      }
      if (key === 'nullable') nullable += 1;
    }
    expect(nullable).toBeGreaterThan(50);
    // A nullable field keeps its type: a run's `startedAt` is a string or null.
    const run = JSON.stringify(document.paths);
    expect(run).toContain('"nullable":true');
  });

  it('keeps /openapi.json whole: 3.1, addressed at the public URL', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      openapi: string;
      servers: Array<{ url: string }>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers[0]?.url).toBe(t.config.publicUrl);
  });
});
