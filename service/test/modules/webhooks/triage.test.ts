import { testRunDetailResponse, webhookBody } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { readyTest, runToEnd, startPages } from '../history/pages.ts';
import { createTest } from '../runs/helpers.ts';
import { makeCertificate, type Receiver, startReceiver } from './receiver.ts';

const certificate = makeCertificate();

/**
 * Real runs against loopback pages, their webhooks delivered to a real HTTPS receiver: a
 * failure also failing on main is `known` in a branch run, one that passes on main is `new`,
 * in the webhook body and in the run report alike.
 */
describe('triage of a run’s failures in the webhook body and the run report', () => {
  let t: TestApp;
  let receiver: Receiver;
  let pages: Awaited<ReturnType<typeof startPages>>;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  let checkout: string;
  let search: string;
  let mainRun: string;
  let featureRun: string;

  /** Past the API cooldowns (the test clock moves 11 s), history written. */
  const run = async (testIds: string[], metadata: Record<string, unknown>) => {
    offsetMs += 11_000;
    return (await runToEnd(t, pages.url, testIds, metadata)).runId;
  };

  async function bodyFor(runId: string) {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      for (const request of receiver.requests) {
        const body = webhookBody.parse(JSON.parse(request.rawBody.toString('utf8')));
        if (body.run.id === runId) return body;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no webhook for run ${runId}`);
  }

  async function reportOf(runId: string) {
    const response = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}` });
    expect(response.statusCode, response.body).toBe(200);
    const report = testRunDetailResponse.parse(response.json()).data.report;
    return new Map(report?.runTypeInfo.testResults.map((test) => [test.testId, test]));
  }

  beforeAll(async () => {
    pages = await startPages();
    receiver = await startReceiver(certificate, [{ status: 200 }]);
    t = await createTestApp({
      clock,
      background: true,
      env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    t.app.webhooks.configure({ ca: certificate.cert });
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload: { url: receiver.url(), events: ['run.completed', 'run.failed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    checkout = await createTest(t, readyTest('Checkout', '/broken'));
    search = await createTest(t, readyTest('Search', '/toggle'));
    // On main, checkout fails and search passes.
    mainRun = await run([checkout, search], { commitSha: 'c0ffee1', ref: 'main' });
    // On a pull request's branch, search fails too; checkout fails as it does on main.
    pages.state.toggleReady = false;
    featureRun = await run([checkout, search], { commitSha: 'feedbee', ref: 'feature/pay', baseRef: 'main' });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await pages?.close();
  });

  it('the run.failed body classes each failure against the base branch', async () => {
    const body = await bodyFor(featureRun);
    expect(body.event).toBe('run.failed');
    expect(body.run.triage?.baseBranch).toBe('main');
    expect(body.run.triage?.counts).toEqual({ new: 1, known: 1, flaky: 0, quarantined: 0 });
    expect(new Set(body.run.triage?.failures)).toEqual(
      new Set([
        { testId: checkout, name: 'Checkout', triage: 'known' },
        { testId: search, name: 'Search', triage: 'new' },
      ]),
    );
    // The first failure on main has nothing before it: new, and the passed test is not listed.
    const first = await bodyFor(mainRun);
    expect(first.run.triage?.failures).toEqual([{ testId: checkout, name: 'Checkout', triage: 'new' }]);
  });

  it('the run report gives each failed test its class, and none to a passed test', async () => {
    const feature = await reportOf(featureRun);
    expect(feature.get(checkout)).toMatchObject({ status: 'failed', triage: 'known' });
    expect(feature.get(search)).toMatchObject({ status: 'failed', triage: 'new' });
    const main = await reportOf(mainRun);
    expect(main.get(checkout)?.triage).toBe('new');
    expect(main.get(search)?.status).toBe('passed');
    expect(main.get(search)).not.toHaveProperty('triage');
  });
});
