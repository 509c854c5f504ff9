import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { makeCertificate, type Receiver, startReceiver } from './receiver.ts';

const certificate = makeCertificate();

/** The webhook body as sent, for the fields this file checks. */
interface SentBody {
  event: string;
  deliveryId: string;
  run: {
    id: string;
    status: string;
    trigger: Record<string, unknown>;
    target: { type: string; name: string };
  };
}

/**
 * End to end through the real modules: a schedule starts a run (the runs module's startRun
 * with a schedule trigger), the runner executes it with Playwright, `run.finished` is emitted,
 * and the webhook body names how the run started.
 */
describe('run.trigger in webhook bodies for real runs', () => {
  let t: TestApp;
  let receiver: Receiver;
  let site: http.Server;
  let siteUrl: string;

  beforeAll(async () => {
    site = http.createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/health`;
    receiver = await startReceiver(certificate, [{ status: 200 }]);
    t = await createTestApp({
      background: true,
      env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    t.app.webhooks.configure({ ca: certificate.cert });
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload: { url: receiver.url(), events: ['run.completed', 'run.failed'] },
    });
    expect(response.statusCode, response.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await new Promise((resolve) => site?.close(resolve));
  });

  async function createApiTest(name: string): Promise<string> {
    const boundary = '----stepdeckwebhooktrigger';
    const testData = JSON.stringify({
      name,
      status: 'active',
      metadata: { type: 'api' },
      steps: [
        { name: 'call', action: { name: 'request', method: 'GET', url: siteUrl } },
        { name: 'check', action: { name: 'assertStatus', value: 200 } },
      ],
    });
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="testData"\r\n\r\n${testData}\r\n--${boundary}--\r\n`,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.id as string;
  }

  async function bodyFor(runId: string): Promise<SentBody> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      for (const request of receiver.requests) {
        const body = JSON.parse(request.rawBody.toString('utf8')) as SentBody;
        if (body.run.id === runId) return body;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no webhook for run ${runId}`);
  }

  it('names the schedule for a run a schedule started, and the API key for one a key started', async () => {
    const testId = await createApiTest('health check');
    // A yearly schedule, triggered now through the API: the scheduler's own startRun path.
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/schedules',
      payload: {
        name: 'Nightly smoke',
        projectId: t.bootstrap.projectId,
        cron: '0 3 1 1 *',
        testIds: [testId],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const scheduleId = created.json().data.id as string;
    const triggered = await t.api({ method: 'POST', url: `/v1/schedules/${scheduleId}/trigger` });
    expect(triggered.statusCode, triggered.body).toBe(200);
    const scheduledRunId = triggered.json().data.runId as string;

    const scheduled = await bodyFor(scheduledRunId);
    expect(scheduled.event).toBe('run.completed');
    expect(scheduled.run.status).toBe('completed');
    expect(scheduled.run.trigger).toEqual({ type: 'schedule', schedule: 'Nightly smoke' });
    const row = await t.ctx.db
      .selectFrom('runs')
      .select(['scheduleId', 'triggerType'])
      .where('id', '=', scheduledRunId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ scheduleId, triggerType: 'schedule' });

    // The same test started by the bootstrap API key names the key instead.
    const remote = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
    expect(remote.statusCode, remote.body).toBe(200);
    const keyed = await bodyFor(remote.json().data.runId as string);
    expect(keyed.run.trigger).toEqual({ type: 'apiKey', name: 'bootstrap' });
    expect(keyed.run.target).toMatchObject({ type: 'test', name: 'health check' });
  });
});
