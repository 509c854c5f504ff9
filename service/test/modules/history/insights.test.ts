import { testInsightsResponse } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest } from '../runs/helpers.ts';
import { readyTest, runToEnd, startPages } from './pages.ts';

/**
 * The quarantine rules over real runs: a page that fails every other load is quarantined by
 * the flake rule, and once fixed, leaves by the release rule. The thresholds are lowered so a
 * few runs show both: flake rate 0.3 over at least 4 results; release once the Wilson lower
 * bound of the pass rate since reaches 0.5 (4 passes in a row: 0.51; 3: 0.44).
 */
describe.each(databaseKinds)('flaky, failing and quarantined tests over real runs on %s', (database) => {
  let t: TestApp;
  let pages: Awaited<ReturnType<typeof startPages>>;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  let flaky: string;
  let checkout: string;
  const checkoutRuns: string[] = [];

  const run = async (testIds: string[]) => {
    offsetMs += 11_000;
    return runToEnd(t, pages.url, testIds, { ref: 'main' });
  };
  const insights = async (query = '') => {
    const response = await t.api({ method: 'GET', url: `/v1/test-insights${query}` });
    expect(response.statusCode, response.body).toBe(200);
    return testInsightsResponse.parse(response.json()).data;
  };

  beforeAll(async () => {
    pages = await startPages();
    t = await createTestApp({
      database,
      clock,
      background: true,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        QUARANTINE_FLAKE_RATE: '0.3',
        QUARANTINE_MIN_RESULTS: '4',
        QUARANTINE_RELEASE_PASS_RATE: '0.5',
      },
    });
    flaky = await createTest(t, readyTest('Flaky page', '/flaky'));
    checkout = await createTest(t, readyTest('Checkout', '/broken'));
    // Pass, fail, pass, fail: flake rate 0.5 over 4 results after the fourth run.
    for (let index = 0; index < 4; index++) {
      const ended = await run(index < 2 ? [flaky, checkout] : [flaky]);
      if (index < 2) checkoutRuns.push(ended.runId);
    }
    // A run's history is written when the run's end is heard, just after its status shows.
    await vi.waitFor(async () => expect((await insights()).quarantined).toHaveLength(1), {
      timeout: 30_000,
      interval: 200,
    });
  }, 600_000);
  afterAll(async () => {
    await t?.close();
    await pages?.close();
  });

  it('lists flaky and failing tests of the default branch, from their latest results', async () => {
    const body = await insights();
    expect(body.branchName).toBe('main');
    expect(body.flaky.map((test) => [test.name, test.flakeRate, test.sampleSize])).toEqual([
      ['Flaky page', 0.5, 4],
    ]);
    const failing = new Map(body.failing.map((test) => [test.testId, test]));
    expect(failing.get(checkout)).toMatchObject({
      name: 'Checkout',
      lastStatus: 'failed',
      passRate: 0,
      failingSince: { runId: checkoutRuns[0] },
    });
    expect(failing.get(flaky)?.lastStatus).toBe('failed');
    expect((await insights('?branch=main')).branchId).toBe(body.branchId);
    expect((await insights(`?branch=${body.branchId}`)).flaky).toHaveLength(1);
    const unknown = await t.api({ method: 'GET', url: '/v1/test-insights?branch=nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Branch not found');
    const foreign = await t.api({
      method: 'GET',
      url: '/v1/test-insights?branch=00000000-0000-4000-8000-000000000000',
    });
    expect(foreign.statusCode).toBe(404);
    expect((await t.api({ method: 'GET', url: '/v1/test-insights?limit=0' })).statusCode).toBe(400);
  });

  it('the flake rule put the flaky test in quarantine, and only it', async () => {
    const body = await insights();
    expect(body.autoQuarantineAt).toBe(0.3);
    expect(body.quarantined).toEqual([
      expect.objectContaining({
        testId: flaky,
        name: 'Flaky page',
        quarantine: expect.objectContaining({
          createdBy: 'Stepdeck (flake rules)',
          reason: 'flake rate 50 % over its latest 4 results on main',
        }),
        evidence: { results: 0, passes: 0, passRateLowerBound: null, releaseAt: 0.5 },
      }),
    ]);
    expect(body.quarantineEvents).toEqual([
      expect.objectContaining({ testId: flaky, kind: 'quarantined', automatic: true, evidence: null }),
    ]);
    const history = await t.api({ method: 'GET', url: `/v1/tests/${flaky}/history` });
    expect(history.json().quarantine.createdBy).toBe('Stepdeck (flake rules)');
  });

  it('once the page is fixed, the release rule lets it out after enough passes, with its evidence', async () => {
    pages.state.flakyFixed = true;
    for (let index = 0; index < 3; index++) await run([flaky]);
    await expect.poll(async () => (await insights()).quarantined[0]?.evidence.results).toBe(3);
    const waiting = await insights();
    expect(waiting.quarantined[0]?.evidence).toMatchObject({ results: 3, passes: 3 });
    expect(waiting.quarantined[0]?.evidence.passRateLowerBound).toBeLessThan(0.5);
    await run([flaky]);
    await expect.poll(async () => (await insights()).quarantined).toEqual([]);
    const released = await insights();
    expect(released.quarantineEvents[0]).toMatchObject({
      testId: flaky,
      kind: 'released',
      automatic: true,
      actor: 'Stepdeck (flake rules)',
      reason: 'passed 4 of 4 since quarantined',
      evidence: { results: 4, passes: 4, releaseAt: 0.5 },
    });
    expect(released.quarantineEvents[0]?.evidence?.passRateLowerBound).toBeGreaterThanOrEqual(0.5);
    expect(released.failing.map((test) => test.testId)).toEqual([checkout]);
  }, 300_000);

  it('records quarantines put and lifted by hand as events of the person', async () => {
    const put = await t.api({
      method: 'PUT',
      url: `/v1/tests/${checkout}/quarantine`,
      payload: { reason: 'payment sandbox down' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await insights()).quarantined.map((entry) => entry.testId)).toEqual([checkout]);
    expect((await t.api({ method: 'DELETE', url: `/v1/tests/${checkout}/quarantine` })).statusCode).toBe(200);
    const [released, quarantined] = (await insights()).quarantineEvents;
    expect(quarantined).toMatchObject({
      testId: checkout,
      kind: 'quarantined',
      automatic: false,
      reason: 'payment sandbox down',
    });
    expect(released).toMatchObject({
      testId: checkout,
      kind: 'released',
      automatic: false,
      name: 'Checkout',
    });
    expect(quarantined?.actor).toBe(released?.actor);
    expect(quarantined?.actor).not.toBe('Stepdeck (flake rules)');
  });
});
