import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetBrowserChecks } from '../../../src/runner/browser-builds.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { createSchedule, manualClock, schedulerFor } from '../schedules/fixtures.ts';
import { apiTest, createTest } from './helpers.ts';

/**
 * A test saved for Firefox runs on Firefox when the run names no browser. Its build is absent
 * here (the browsers folders point at an empty folder), so every way of starting it says so at
 * trigger, naming the test, instead of a run failing at its first step.
 */
describe('a test whose own config names a browser that is not installed', () => {
  let t: TestApp;
  let checkout: string;
  let health: string;
  let shop: string;
  const clock = manualClock('2030-06-01T08:00:00.500Z');
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-browsers-'));
  const saved = {
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
    PLAYWRIGHT_BROWSERS_PATH: process.env.PLAYWRIGHT_BROWSERS_PATH,
  };
  const refusal = {
    code: 'BROWSER_NOT_INSTALLED',
    message:
      'test "Checkout" is configured for firefox, which is not installed on this runner: run npx playwright install firefox',
  };

  beforeAll(async () => {
    process.env.XDG_CACHE_HOME = cacheDir;
    delete process.env.PLAYWRIGHT_BROWSERS_PATH;
    forgetBrowserChecks();
    t = await createTestApp({ clock, env: { STEPDECK_CACHE_DIR: path.join(cacheDir, 'stepdeck') } });
    shop = await createTest(t, { name: 'Shop', directory: true });
    checkout = await createTest(
      t,
      apiTest('Checkout', 'http://127.0.0.1:9/checkout', 200, {
        parentTestId: shop,
        config: { use: { browserName: 'firefox' } },
      }),
    );
    health = await createTest(t, apiTest('Health', 'http://127.0.0.1:9/health', 200, { parentTestId: shop }));
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    forgetBrowserChecks();
    await t?.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });

  it('refuses a run of that test alone with a 400 naming it, by remote-run and by bulk run', async () => {
    const single = await t.api({ method: 'POST', url: `/v1/tests/${checkout}/remote-run`, payload: {} });
    expect(single.statusCode, single.body).toBe(400);
    expect(single.json()).toEqual(refusal);
    const bulk = await t.api({
      method: 'POST',
      url: '/v1/tests/remote-run',
      payload: { testIds: [checkout] },
    });
    expect(bulk.statusCode, bulk.body).toBe(400);
    expect(bulk.json()).toEqual(refusal);
    expect((await t.api({ method: 'GET', url: '/v1/test-runs' })).json().data).toEqual([]);
  });

  it('runs it when the run itself chooses chromium', async () => {
    const started = await t.api({
      method: 'POST',
      url: `/v1/tests/${checkout}/remote-run`,
      payload: { config: { use: { browserName: 'chromium' } } },
    });
    expect(started.statusCode, started.body).toBe(200);
    await t.ctx.db.deleteFrom('runs').execute();
  });

  it('leaves it out of a directory run with the reason, and runs the rest', async () => {
    clock.advance(11_000);
    const run = await t.api({ method: 'POST', url: `/v1/tests/${shop}/remote-run`, payload: {} });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().data).toMatchObject({
      totalTests: 1,
      leftOut: [
        {
          testId: checkout,
          name: 'Checkout',
          status: 'active',
          reason: 'browser not installed',
          browser: 'firefox',
        },
      ],
    });
    const detail = (await t.api({ method: 'GET', url: `/v1/test-runs/${run.json().data.runId}` })).json()
      .data;
    expect(detail.metadata.leftOut).toEqual({
      count: 1,
      tests: [
        {
          testId: checkout,
          name: 'Checkout',
          status: 'active',
          reason: 'browser not installed',
          browser: 'firefox',
        },
      ],
    });
    const included = await t.ctx.db
      .selectFrom('runTests')
      .select('testId')
      .where('runId', '=', run.json().data.runId)
      .execute();
    expect(included).toEqual([{ testId: health }]);
    await t.ctx.db.deleteFrom('runs').execute();
  });

  it("records the refusal as a schedule's last error when the schedule fires", async () => {
    const schedule = await createSchedule(t, { name: 'checkout nightly', testIds: [checkout] });
    clock.advance(1000);
    expect(await schedulerFor(t, clock).fireDue()).toEqual([{ scheduleId: schedule.id, outcome: 'failed' }]);
    const stored = (await t.api({ method: 'GET', url: `/v1/schedules/${schedule.id}` })).json().data;
    expect(stored.lastError).toBe(refusal.message);
    await t.ctx.db.deleteFrom('schedules').where('id', '=', schedule.id).execute();
  });
});
