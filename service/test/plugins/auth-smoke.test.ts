import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../helper.ts';

describe.each(databaseKinds)('auth basics on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ database });
  });
  afterAll(async () => t?.close());

  it('answers 401 Invalid API key without a key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/test-runs' });
    // No runs route yet in the skeleton: the rate limiter and 404 handler still answer JSON.
    expect([401, 404]).toContain(response.statusCode);
    expect(response.json()).toHaveProperty('message');
  });

  it('bootstraps an owner who can sign in to the console', async () => {
    const cookie = await t.consoleCookie();
    const response = await t.app.inject({ method: 'GET', url: '/console/v1/api-keys', headers: { cookie } });
    expect(response.statusCode).toBe(200);
    const keys = response.json().data as Array<{ name: string; prefix: string }>;
    expect(keys.map((key) => key.name)).toEqual(['bootstrap']);
    expect(keys[0]?.prefix).toBe(t.bootstrap.apiKey.slice(0, 8));
    expect(JSON.stringify(keys)).not.toContain(t.bootstrap.apiKey);
  });
});
