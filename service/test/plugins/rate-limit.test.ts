import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, createTestApp, databaseKinds, type TestApp } from '../helper.ts';

// A real /v1 route that needs only a key (no project), so each request is cheap.
const url = '/v1/email-inboxes/limits';

async function hit(app: FastifyInstance, key: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) {
    const response = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    statuses.push(response.statusCode);
  }
  return statuses;
}

function expectRateLimited(response: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  expect(response.statusCode).toBe(429);
  expect(response.json()).toEqual({ error: 'Too many requests', code: 'RATE_LIMITED' });
  const retryAfter = String(response.headers['retry-after']);
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

describe.each(databaseKinds)('rate limit on %s', (database) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('is 300 requests per minute per API key by default; another key is unaffected', async () => {
    // The default configuration: no RATE_LIMIT_PER_MINUTE override.
    const t = await createTestApp({ database });
    apps.push(t);
    expect(t.config.rateLimitPerMinute).toBe(300);
    const other = await createApiKey(t, ['emailInbox:read'], 'other');

    const statuses = await hit(t.app, t.bootstrap.apiKey, 300);
    expect(statuses.filter((status) => status === 200)).toHaveLength(300);
    const last = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.bootstrap.apiKey } });
    expectRateLimited(last);
    expect(last.headers['x-ratelimit-limit']).toBe('300');

    // Another key of the same organization still has its whole budget.
    const fresh = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': other } });
    expect(fresh.statusCode).toBe(200);
    // Success responses carry no counters (they cost every request); the budget shows by use.
    expect(fresh.headers['x-ratelimit-remaining']).toBeUndefined();
    const rest = await hit(t.app, other, 299);
    expect(rest.filter((status) => status === 200)).toHaveLength(299);
    expectRateLimited(await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': other } }));
    // The console is not rate limited by the API key budget.
    const cookie = await t.consoleCookie();
    const consoleCall = await t.app.inject({
      method: 'GET',
      url: '/console/v1/projects',
      headers: { cookie },
    });
    expect(consoleCall.statusCode).toBe(200);
    // And the limited key stays limited.
    expectRateLimited(
      await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.bootstrap.apiKey } }),
    );
  });

  it('limits requests with an invalid key too, before looking the key up', async () => {
    const t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    apps.push(t);
    const bogus = `sd_${'0'.repeat(48)}`;
    expect(await hit(t.app, bogus, 3)).toEqual([401, 401, 401]);
    expectRateLimited(await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': bogus } }));
    expect((await hit(t.app, t.bootstrap.apiKey, 1))[0]).toBe(200);
  });
});

describe('rate limit shared through PostgreSQL', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('counts one budget across two instances on the same database', async () => {
    const first = await createTestApp({ database: 'postgres' });
    apps.push(first);
    // A second app instance with its own in-process state on the same database (default limit);
    // it shares DATA_DIR only so the test helper can read the bootstrap credentials.
    const second = await createTestApp({ databaseUrl: first.databaseUrl, dataDir: first.dataDir });
    apps.push(second);
    expect(second.bootstrap.apiKey).toBe(first.bootstrap.apiKey);
    expect(second.config.rateLimitPerMinute).toBe(300);

    const key = first.bootstrap.apiKey;
    const fromFirst = await hit(first.app, key, 150);
    const fromSecond = await hit(second.app, key, 150);
    expect([...fromFirst, ...fromSecond].every((status) => status === 200)).toBe(true);
    expectRateLimited(await second.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } }));
    expectRateLimited(await first.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } }));

    const rows = await first.ctx.db.selectFrom('rateLimits').select(['key', 'hits']).execute();
    // Counters are kept by key hash: the raw key is never stored.
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(rows.some((row) => row.hits === 302)).toBe(true);
  });
});
