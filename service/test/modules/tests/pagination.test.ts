import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep } from './helpers.ts';

/**
 * Any `page`/`limit` the spec allows answers 200 with a correct pagination object
 * (an empty page past the last one), never a 500 — even when `page × limit` passes the
 * databases' 64-bit integers. `GET /v1/test-runs` caps `limit` at 500 (a 400 naming it).
 */

const safe = Number.MAX_SAFE_INTEGER;
/** Small values (real pages) and huge ones (the fuzzer's finds), both ends included. */
const pageArb = fc.oneof(
  fc.integer({ min: 0, max: 4 }),
  fc.integer({ min: 0, max: safe }),
  fc.constant(safe),
);
const limitArb = (max: number) =>
  fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max }), fc.constant(max));

const runs = { numRuns: 40 };

describe.each(databaseKinds)('pagination past the last page (%s)', (database) => {
  let t: TestApp;
  const testCount = 7;
  const sharedCount = 3;
  const runCount = 3;

  beforeAll(async () => {
    t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    const ids: string[] = [];
    for (let index = 0; index < testCount; index++) {
      const test = await createTest(t, {
        name: `p${index}`,
        status: 'active',
        steps:
          index < sharedCount
            ? [{ ...gotoStep(`https://example.com/${index}`, `shared ${index}`), shared: true }]
            : [gotoStep(`https://example.com/${index}`)],
      });
      ids.push(test.id);
    }
    // Queued runs (no background runner here): one per test, so none is refused as active.
    for (const id of ids.slice(0, runCount)) {
      const run = await t.api({ method: 'POST', url: `/v1/tests/${id}/remote-run`, payload: {} });
      if (run.statusCode !== 200) throw new Error(`run trigger: ${run.statusCode} ${run.body}`);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const expectPage = (
    body: { pagination: Record<string, unknown> },
    items: unknown[],
    page: number,
    limit: number,
    total: number,
  ) => {
    const totalPages = Math.ceil(total / limit);
    expect(body.pagination).toEqual({ page, limit, total, totalPages, hasMore: page + 1 < totalPages });
    expect(items).toHaveLength(Math.max(0, Math.min(limit, total - page * limit)));
  };

  it('GET /v1/tests: any page and limit ≥ 1', async () => {
    await fc.assert(
      fc.asyncProperty(pageArb, limitArb(safe), async (page, limit) => {
        const response = await t.api({ method: 'GET', url: `/v1/tests?page=${page}&limit=${limit}` });
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        expectPage(body, body.children, page, limit, testCount);
      }),
      runs,
    );
    const fuzzerFind = await t.api({ method: 'GET', url: '/v1/tests?limit=1000000&page=10000000000000' });
    expect(fuzzerFind.statusCode).toBe(200);
    expect(fuzzerFind.json().children).toEqual([]);
  });

  it('GET /v1/steps/shared: any page and limit ≥ 1', async () => {
    await fc.assert(
      fc.asyncProperty(pageArb, limitArb(safe), async (page, limit) => {
        const response = await t.api({ method: 'GET', url: `/v1/steps/shared?page=${page}&limit=${limit}` });
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        expectPage(body, body.data, page, limit, sharedCount);
      }),
      runs,
    );
    const fuzzerFind = await t.api({
      method: 'GET',
      url: '/v1/steps/shared?limit=9007199254740991&page=642121099',
    });
    expect(fuzzerFind.statusCode).toBe(200);
    expect(fuzzerFind.json().data).toEqual([]);
  });

  it('GET /v1/test-runs: any page and limit 1–500; above 500 a 400 naming the bound', async () => {
    const total = (await t.api({ method: 'GET', url: '/v1/test-runs?limit=500' })).json().pagination.total;
    expect(total).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(pageArb, limitArb(500), async (page, limit) => {
        const response = await t.api({ method: 'GET', url: `/v1/test-runs?page=${page}&limit=${limit}` });
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        expectPage(body, body.data, page, limit, total);
      }),
      runs,
    );
    await fc.assert(
      fc.asyncProperty(pageArb, fc.integer({ min: 501, max: safe }), async (page, limit) => {
        const response = await t.api({ method: 'GET', url: `/v1/test-runs?page=${page}&limit=${limit}` });
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toMatch(/limit/);
      }),
      { numRuns: 10 },
    );
  });
});
