import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunFinished } from '../../../src/context.ts';
import { buildBody } from '../../../src/modules/webhooks/payload.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { createTest, runOf, type Site, startSite, waitForStatus } from './helpers.ts';

/**
 * A failure inside a shared step, end to end through the API: the run's report, the webhook
 * body and the HTML report name the step the user wrote, never the generated code.
 */
describe('run failures in the user’s words (real Chromium)', () => {
  let t: TestApp;
  let site: Site;
  const finished: RunFinished[] = [];
  let runId: string;
  let run: Awaited<ReturnType<typeof runOf>>;

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    t.ctx.events.on('run.finished', (event) => finished.push(event));
    // The shared group is created with one test and used by reference from another.
    const owner = await createTest(t, {
      name: 'Owner of the shared login',
      steps: [
        {
          name: 'Log in',
          shared: true,
          action: { name: 'group' },
          children: [
            { name: 'Open page', action: { name: 'goto', url: '/page' } },
            { action: { name: 'assertText', selector: '#title', value: 'Welcome back' } },
          ],
        },
      ],
    });
    const steps = (await t.api({ method: 'GET', url: `/v1/tests/${owner}/steps` })).json().data
      .steps as Array<{
      stepId: string;
    }>;
    const testId = await createTest(t, {
      name: 'Checkout',
      steps: [
        { shared: true, stepId: steps[0]?.stepId },
        { name: 'Pay', action: { name: 'fill', selector: '#field', value: 'card' } },
      ],
    });
    const response = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { config: { use: { baseURL: site.url, actionTimeout: 1500 } } },
    });
    expect(response.statusCode).toBe(200);
    runId = response.json().data.runId;
    run = await waitForStatus(t, runId, ['completed', 'failed']);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('GET /v1/test-runs/:runId names the failing step inside the shared step, with expected and received', async () => {
    expect(run.status).toBe('failed');
    const detail = await runOf(t, runId);
    const report = detail.report as {
      runTypeInfo: {
        testResults: Array<{
          name: string;
          status: string;
          errorMessage: string;
          errorLocation: string;
          errorDetail: string;
          failedStep: { name: string; action: string; path: string[]; stepId: string };
          expected: string;
          received: string;
          flaky: boolean;
          steps: Array<{ name: string; path: string[]; status: string; depth: number }>;
        }>;
      };
    };
    const [test] = report.runTypeInfo.testResults;
    expect(test?.status).toBe('failed');
    expect(test?.errorLocation).toBe('Log in › assertText');
    // The editor names an unnamed step after its action; the action keeps its selector.
    expect(test?.failedStep).toMatchObject({
      name: 'assertText',
      action: 'assertText #title',
      path: ['Log in', 'assertText'],
    });
    expect(test?.expected).toBe('"Welcome back"');
    expect(test?.received).toBe('"Hello runs"');
    expect(test?.flaky).toBe(false);
    expect(test?.errorMessage.split('\n')[0]).toBe('Step "Log in › assertText" (assertText #title) failed');
    expect(test?.steps.map((step) => [step.path.join(' › '), step.status])).toEqual([
      ['Log in', 'failed'],
      ['Log in › Open page', 'passed'],
      ['Log in › assertText', 'failed'],
      ['Pay', 'notRun'],
    ]);
    for (const text of [test?.errorMessage, test?.errorLocation, test?.errorDetail]) {
      expect(text).not.toMatch(/\/tmp\//);
    }
    expect(test?.errorMessage).not.toMatch(/sd\.step|sd\.t\(|\.spec\.ts|\d+ \|/);
  });

  it('the run.finished event and the webhook body carry the user-facing message and step path', () => {
    const event = finished.find((candidate) => candidate.runId === runId);
    expect(event?.tests[0]?.errorLocation).toBe('Log in › assertText');
    const body = buildBody({
      event: 'run.failed',
      deliveryId: 'd',
      timestamp: new Date().toISOString(),
      run: event as RunFinished,
      publicUrl: 'http://localhost',
      custom: null,
    }) as { run: { tests: Array<{ errorMessage: string; errorLocation: string }> } };
    expect(body.run.tests[0]?.errorLocation).toBe('Log in › assertText');
    expect(body.run.tests[0]?.errorMessage).toMatch(
      /^Step "Log in › assertText" \(assertText #title\) failed\n/,
    );
    expect(body.run.tests[0]?.errorMessage).toMatch(/Expected[^:\n]*: "Welcome back"/);
    expect(JSON.stringify(body)).not.toMatch(/\/tmp\/|\.spec\.ts|sd\.step/);
  });

  it('the HTML report shows the failed test’s step tree with each outcome', async () => {
    const response = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/report` });
    expect(response.statusCode).toBe(200);
    const html = response.body;
    expect(html).toContain('Log in › assertText');
    expect(html).toMatch(/Open page<\/span>(?:(?!<\/tr>)[\s\S])*>passed<\/td>/);
    expect(html).toMatch(/Pay<\/span>(?:(?!<\/tr>)[\s\S])*>not run<\/td>/);
    expect(html).toContain('&quot;Welcome back&quot;');
    expect(html).not.toMatch(/\/tmp\/|\.spec\.ts|sd\.step/);
  });
});
