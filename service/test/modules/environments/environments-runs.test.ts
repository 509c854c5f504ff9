import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookBody } from '@stepdeck/contract';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunFinished } from '../../../src/context.ts';
import { buildBody, eventOf } from '../../../src/modules/webhooks/payload.ts';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { allArtifactFiles } from '../runs/artifacts.ts';
import { createTest, runOf, waitForStatus } from '../runs/helpers.ts';

interface Site {
  url: string;
  /** The `x-token` header of the last `/api` call. */
  token: string | undefined;
  close(): Promise<void>;
}

/** A loopback site whose page says `Welcome to <stage>`. */
async function startStageSite(stage: string): Promise<Site> {
  const site: Site = { url: '', token: undefined, close: async () => {} };
  const server = http.createServer((request, response) => {
    if (request.url?.startsWith('/api')) {
      site.token = request.headers['x-token'] as string | undefined;
      response.end('ok');
      return;
    }
    response.setHeader('content-type', 'text/html');
    response.end(
      `<!doctype html><html><body><h1 id="title">Welcome to ${stage}</h1><input id="field"></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

interface TestResult {
  status: string;
  errorMessage: string | null;
  expected?: string | null;
  received?: string | null;
}
const resultsOf = (run: Record<string, unknown>) =>
  (run.report as { runTypeInfo: { testResults: TestResult[] } }).runTypeInfo.testResults;

/**
 * Environments end to end, real Chromium: the same test against two loopback sites by picking
 * an environment, `{{env.X}}`, an environment secret kept out of every artifact, precedence of
 * environment < preset < the caller's config, and schedules and presets that pick one.
 */
describe('runs with an environment', () => {
  let t: TestApp;
  let staging: Site;
  let production: Site;
  let cookie: string;
  const secret = 'Stg s3cret/Value+"q&1';
  const as = (inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const environmentsUrl = () => `/console/v1/projects/${t.bootstrap.projectId}/environments`;
  /** Runs of one test are 10 s apart (the API cooldown); this waits it out. */
  let lastRunAt = 0;
  const cooled = async () => {
    const wait = lastRunAt + 10_500 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastRunAt = Date.now();
  };
  let checkoutId: string;

  beforeAll(async () => {
    staging = await startStageSite('staging');
    production = await startStageSite('production');
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    cookie = await t.consoleCookie();
    const projectSecret = await as({
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'PASSWORD', value: 'the-project-password' },
    });
    expect(projectSecret.statusCode).toBe(201);
    for (const [name, site, greeting, password] of [
      ['staging', staging, 'Welcome to staging', secret],
      ['production', production, 'Welcome to production', undefined],
    ] as const) {
      const created = await as({
        method: 'POST',
        url: environmentsUrl(),
        payload: {
          name,
          baseURL: site.url,
          variables: { GREETING: greeting },
          ...(password ? { secrets: { PASSWORD: password } } : {}),
        },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    checkoutId = await createTest(t, {
      name: 'checkout',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        {
          name: 'on staging',
          action: { name: 'assertText', selector: '#title', value: 'Welcome to staging' },
        },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await staging?.close();
    await production?.close();
  });

  it('an environment switch runs the same test against two loopback sites', async () => {
    const finished: RunFinished[] = [];
    t.ctx.events.on('run.finished', (run) => finished.push(run));
    const started: Record<string, string> = {};
    for (const environment of ['staging', 'production']) {
      await cooled();
      const response = await t.api({
        method: 'POST',
        url: `/v1/tests/${checkoutId}/remote-run`,
        payload: { environment },
      });
      expect(response.statusCode, response.body).toBe(200);
      started[environment] = response.json().data.runId;
      await waitForStatus(t, started[environment] as string, ['completed', 'failed']);
    }
    const passed = await runOf(t, started.staging as string);
    expect(passed.status).toBe('completed');
    expect(passed.environment).toBe('staging');
    expect((passed.config as { use: { baseURL: string } }).use.baseURL).toBe(staging.url);

    const failed = await runOf(t, started.production as string);
    expect(failed.status).toBe('failed');
    expect(failed.environment).toBe('production');
    const [result] = resultsOf(failed);
    expect(result?.errorMessage?.split('\n')[0]).toBe('Step "on staging" (assertText #title) failed');
    expect(result?.expected).toBe('"Welcome to staging"');
    expect(result?.received).toBe('"Welcome to production"');

    const list = await t.api({ method: 'GET', url: `/v1/test-runs?testId=${checkoutId}` });
    const environments = Object.fromEntries(
      (list.json().data as Array<{ id: string; environment: string | null }>).map((run) => [
        run.id,
        run.environment,
      ]),
    );
    expect(environments[started.staging as string]).toBe('staging');
    expect(environments[started.production as string]).toBe('production');

    // The webhook body names the environment of the run (an additive field of the contract).
    const event = finished.find((run) => run.runId === started.production) as RunFinished;
    const body = buildBody({
      event: eventOf(event.status),
      deliveryId: 'd',
      timestamp: new Date().toISOString(),
      run: event,
      publicUrl: t.config.publicUrl,
      custom: null,
    });
    expect(webhookBody.parse(body).run.environment).toBe('production');
  }, 120_000);

  it('resolves {{env.X}} and uses the environment secret over the project one, redacted from every artifact', async () => {
    const testId = await createTest(t, {
      name: 'greets',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'greeting', action: { name: 'assertText', selector: '#title', value: '{{env.GREETING}}' } },
        { name: 'type', action: { name: 'fill', selector: '#field', value: '{{secrets.PASSWORD}}' } },
        {
          name: 'call',
          action: {
            name: 'request',
            method: 'GET',
            url: '/api/me',
            headers: { 'x-token': '{{secrets.PASSWORD}}' },
          },
        },
      ],
    });
    const outcomes: Record<string, Record<string, unknown>> = {};
    for (const environment of ['staging', 'production']) {
      await cooled();
      const response = await t.api({
        method: 'POST',
        url: `/v1/tests/${testId}/remote-run`,
        payload: { environment, config: { use: { trace: 'on', screenshot: 'off' } } },
      });
      expect(response.statusCode, response.body).toBe(200);
      outcomes[environment] = await waitForStatus(t, response.json().data.runId, ['completed', 'failed']);
    }
    // Each environment's GREETING matched its own site.
    expect(outcomes.staging?.status).toBe('completed');
    expect(outcomes.production?.status).toBe('completed');
    // Staging has its own PASSWORD; production falls back to the project's.
    expect(staging.token).toBe(secret);
    expect(production.token).toBe('the-project-password');

    const files = await allArtifactFiles(t, outcomes.staging?.id as string);
    expect(files.some((file) => /trace\.zip:(\d+-)?trace\.trace$/.test(file.name))).toBe(true);
    expect(files.some((file) => file.name.endsWith('test-run.log'))).toBe(true);
    const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];
    for (const file of files)
      for (const form of forms)
        expect(file.data.toString('latin1').includes(form), `${form} in ${file.name}`).toBe(false);
    // The run detail never carries it either.
    expect(JSON.stringify(await runOf(t, outcomes.staging?.id as string))).not.toContain(secret);
  }, 120_000);

  it('layers environment < preset < the caller config, and schedules and presets pick one', async () => {
    const preset = await as({
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/presets`,
      payload: { name: 'prod preset', config: { retries: 1 }, environment: 'production' },
    });
    expect(preset.statusCode, preset.body).toBe(201);
    expect(preset.json().data.environment).toBe('production');
    const presetId = preset.json().data.id as string;
    const baseOf = (run: Record<string, unknown>) => (run.config as { use: { baseURL: string } }).use.baseURL;

    // The preset's environment applies when the run names none.
    await cooled();
    const byPreset = await as({
      method: 'POST',
      url: `/v1/tests/${checkoutId}/remote-run`,
      headers: { 'x-project-id': t.bootstrap.projectId },
      payload: { presetId },
    });
    expect(byPreset.statusCode, byPreset.body).toBe(200);
    const presetRun = await waitForStatus(t, byPreset.json().data.runId, ['completed', 'failed']);
    expect(presetRun.environment).toBe('production');
    expect(baseOf(presetRun)).toBe(production.url);
    expect(presetRun.status).toBe('failed');

    // The run's environment over the preset's; the caller's baseURL over both.
    await cooled();
    const explicit = await as({
      method: 'POST',
      url: `/v1/tests/${checkoutId}/remote-run`,
      headers: { 'x-project-id': t.bootstrap.projectId },
      payload: { presetId, environment: 'production', config: { use: { baseURL: staging.url } } },
    });
    const explicitRun = await waitForStatus(t, explicit.json().data.runId, ['completed', 'failed']);
    expect(explicitRun.environment).toBe('production');
    expect(baseOf(explicitRun)).toBe(staging.url);
    expect(explicitRun.status).toBe('completed');

    // A preset's baseURL is over the environment's.
    const edited = await as({
      method: 'PUT',
      url: `/console/v1/projects/${t.bootstrap.projectId}/presets/${presetId}`,
      payload: { config: { use: { baseURL: staging.url } }, environment: 'production' },
    });
    expect(edited.statusCode, edited.body).toBe(200);

    // A schedule names staging over its preset's production; its baseURL comes from the preset.
    const schedule = await as({
      method: 'POST',
      url: '/console/v1/schedules',
      payload: {
        name: 'nightly staging',
        projectId: t.bootstrap.projectId,
        testIds: [checkoutId],
        cron: '0 3 * * *',
        enabled: false,
        presetId,
        environment: 'staging',
      },
    });
    expect(schedule.statusCode, schedule.body).toBe(201);
    expect(schedule.json().data.environment).toBe('staging');
    const fired = await as({
      method: 'POST',
      url: `/console/v1/schedules/${schedule.json().data.id}/trigger`,
    });
    expect(fired.statusCode, fired.body).toBe(200);
    const scheduledRun = await waitForStatus(t, fired.json().data.runId, ['completed', 'failed']);
    expect(scheduledRun.environment).toBe('staging');
    expect(baseOf(scheduledRun)).toBe(staging.url);
    expect(scheduledRun.status).toBe('completed');

    // Taken off the schedule: the preset's environment applies again.
    const cleared = await as({
      method: 'PUT',
      url: `/console/v1/schedules/${schedule.json().data.id}`,
      payload: { environment: null, presetId: null },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data.environment).toBeNull();
  }, 180_000);
});
