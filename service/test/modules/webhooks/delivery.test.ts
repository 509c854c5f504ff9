import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultAttemptDelaysMs,
  defaultDeadlineMs,
  type WebhookSettings,
} from '../../../src/modules/webhooks/delivery.ts';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { finishedRun, makeCertificate, type Receiver, startDelivering, startReceiver } from './receiver.ts';

const certificate = makeCertificate();
const publicUrl = 'https://stepdeck.example.com';

interface DeliveryView {
  id: string;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  body: string;
  event: string;
}

const verify = (secret: string, raw: Buffer, signature: string) => {
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

describe('webhook delivery to a real HTTPS receiver', () => {
  let t: TestApp;
  let stop: () => Promise<void>;
  const receivers: Receiver[] = [];
  const defaults = () => ({
    ca: certificate.cert,
    deadlineMs: defaultDeadlineMs,
    attemptDelaysMs: defaultAttemptDelaysMs,
    resolve: t.app.webhooks.settings.resolve,
    allowedTargets: configuredTargets,
  });
  let systemResolve: WebhookSettings['resolve'];
  let configuredTargets: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', PUBLIC_URL: publicUrl } });
    systemResolve = t.app.webhooks.settings.resolve;
    configuredTargets = t.app.webhooks.settings.allowedTargets;
    t.app.webhooks.configure({ ca: certificate.cert, pollIntervalMs: 200 });
    stop = await startDelivering(t.app);
  });
  afterEach(async () => {
    t.app.webhooks.configure({ ...defaults(), resolve: systemResolve });
    await t.ctx.db.deleteFrom('webhookDeliveries').execute();
    await t.ctx.db.deleteFrom('webhooks').execute();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(async () => {
    await stop?.();
    await t?.close();
  });

  const receiver = async (...replies: Parameters<typeof startReceiver>[1] & object) => {
    const started = await startReceiver(certificate, replies.length > 0 ? replies : undefined);
    receivers.push(started);
    return started;
  };

  async function createWebhook(payload: Record<string, unknown>) {
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as { id: string; secret: string; url: string; events: string[] };
  }

  async function deliveries(webhookId: string): Promise<DeliveryView[]> {
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: `/console/v1/webhooks/${webhookId}/deliveries`,
    });
    expect(response.statusCode).toBe(200);
    return response.json().data;
  }

  async function settled(webhookId: string, deliveryId: string, timeoutMs = 30_000): Promise<DeliveryView> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const found = (await deliveries(webhookId)).find((delivery) => delivery.id === deliveryId);
      if (found && found.status !== 'pending') return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`delivery ${deliveryId} still pending after ${timeoutMs} ms`);
  }

  it('keeps the spec defaults: 10 s deadline, attempts at 0 s, +1 s, +5 s', () => {
    expect(defaultDeadlineMs).toBe(10_000);
    expect([...defaultAttemptDelaysMs]).toEqual([0, 1_000, 5_000]);
  });

  it('signs the raw body and sends the spec headers and body for a completed run', async () => {
    const hook = await receiver();
    const webhook = await createWebhook({ url: hook.url(), events: ['run.completed'] });
    const run = finishedRun(t.bootstrap.organizationId);
    const [deliveryId] = await t.app.webhooks.enqueueRunDeliveries(run);
    const [request] = await hook.waitFor(1);
    if (!request || !deliveryId) throw new Error('no delivery');

    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Service-Webhook');
    expect(request.headers['x-service-event']).toBe('run.completed');
    expect(request.headers['x-service-delivery']).toBe(deliveryId);
    const signature = String(request.headers['x-service-signature']);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verify(webhook.secret, request.rawBody, signature)).toBe(true);
    expect(verify('whsec_wrong', request.rawBody, signature)).toBe(false);

    const body = JSON.parse(request.rawBody.toString('utf8'));
    expect(Object.keys(body)).toEqual(['event', 'deliveryId', 'timestamp', 'run']);
    expect(body.event).toBe('run.completed');
    expect(body.deliveryId).toBe(deliveryId);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(body.run).toEqual({
      id: run.runId,
      name: 'Nightly checkout',
      status: 'completed',
      url: `${publicUrl}/console/projects/${run.project.id}/runs/${run.runId}`,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: 65250,
      trigger: { type: 'apiKey', name: 'ci key' },
      project: run.project,
      branch: run.branch,
      target: run.target,
      stats: { passed: 2, failed: 0, skipped: 1, total: 3 },
      tests: run.tests,
      // Additive: screenshots that differ from their baselines (none in this run).
      visualChanges: [],
    });

    const record = await settled(webhook.id, deliveryId);
    expect(record).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastResponseCode: 200,
      lastError: null,
    });
    expect(Buffer.from(record.body, 'utf8').equals(request.rawBody)).toBe(true);
  });

  it('sends run.failed with its failing tests and the custom data only to subscribed webhooks', async () => {
    const failedHook = await receiver();
    const completedOnly = await receiver();
    const custom = { team: 'checkout', nested: { pager: true, tags: ['a', 'b'] }, count: 3 };
    const webhook = await createWebhook({
      url: failedHook.url(),
      events: ['run.failed'],
      customData: custom,
    });
    await createWebhook({ url: completedOnly.url(), events: ['run.completed'] });
    const run = finishedRun(t.bootstrap.organizationId, {
      status: 'failed',
      trigger: { type: 'manual', email: 'dev@example.com' },
    });
    const ids = await t.app.webhooks.enqueueRunDeliveries(run);
    expect(ids).toHaveLength(1);
    const [request] = await failedHook.waitFor(1);
    const body = JSON.parse(request?.rawBody.toString('utf8') ?? '{}');
    expect(request?.headers['x-service-event']).toBe('run.failed');
    expect(body.event).toBe('run.failed');
    expect(body.run.status).toBe('failed');
    expect(body.run.trigger).toEqual({ type: 'manual', email: 'dev@example.com' });
    expect(body.run.stats).toEqual({ passed: 1, failed: 1, skipped: 1, total: 3 });
    expect(body.run.tests[1]).toEqual({
      name: 'cart',
      status: 'failed',
      durationMs: 3400,
      errorMessage: 'expected "3 items" to be visible',
      errorLocation: 'step 2: assert text',
    });
    expect(body.custom).toEqual(custom);
    await settled(webhook.id, ids[0] as string);
    expect(completedOnly.requests).toHaveLength(0);
  });

  it('sends nothing for cancelled runs or disabled webhooks, and once per run', async () => {
    const hook = await receiver();
    const disabled = await receiver();
    await createWebhook({ url: hook.url(), events: ['run.completed', 'run.failed'] });
    await createWebhook({ url: disabled.url(), events: ['run.completed'], enabled: false });
    const cancelled = { ...finishedRun(t.bootstrap.organizationId), status: 'cancelled' } as never;
    expect(await t.app.webhooks.enqueueRunDeliveries(cancelled)).toEqual([]);
    const run = finishedRun(t.bootstrap.organizationId);
    expect(await t.app.webhooks.enqueueRunDeliveries(run)).toHaveLength(1);
    expect(await t.app.webhooks.enqueueRunDeliveries(run)).toHaveLength(0);
    await hook.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.requests).toHaveLength(1);
    expect(disabled.requests).toHaveLength(0);
  });

  it('delivers run.finished events emitted in process', async () => {
    const hook = await receiver();
    await createWebhook({ url: hook.url(), events: ['run.completed'] });
    // The module's start() subscribes; here the test plays the subscription the same way.
    const run = finishedRun(t.bootstrap.organizationId);
    const onFinished = (event: typeof run) => void t.app.webhooks.enqueueRunDeliveries(event);
    t.ctx.events.on('run.finished', onFinished);
    t.ctx.events.emit('run.finished', run);
    t.ctx.events.off('run.finished', onFinished);
    const [request] = await hook.waitFor(1);
    expect(JSON.parse(request?.rawBody.toString('utf8') ?? '{}').run.id).toBe(run.runId);
  });

  it('fails a 500, a 201 and a 302 after three attempts at 0 s, +1 s, +5 s (default schedule)', async () => {
    const serverError = await receiver({ status: 500 });
    const created = await receiver({ status: 201 });
    const redirect = await receiver({ status: 302, headers: { location: 'https://127.0.0.1:1/elsewhere' } });
    const hooks = [
      { receiver: serverError, code: 500 },
      { receiver: created, code: 201 },
      { receiver: redirect, code: 302 },
    ];
    const webhooks = [];
    for (const hook of hooks)
      webhooks.push(await createWebhook({ url: hook.receiver.url(), events: ['run.failed'] }));
    const ids = await t.app.webhooks.enqueueRunDeliveries(
      finishedRun(t.bootstrap.organizationId, { status: 'failed' }),
    );
    expect(ids).toHaveLength(3);
    for (const [index, hook] of hooks.entries()) {
      const webhook = webhooks[index];
      if (!webhook) throw new Error('missing webhook');
      const [delivery] = await deliveries(webhook.id);
      if (!delivery) throw new Error('missing delivery');
      const record = await settled(webhook.id, delivery.id);
      expect(record.status).toBe('failed');
      expect(record.attempts).toBe(3);
      expect(record.lastResponseCode).toBe(hook.code);
      expect(record.lastError).toContain(`got ${hook.code}`);
      const requests = hook.receiver.requests;
      expect(requests).toHaveLength(3);
      expect(new Set(requests.map((request) => request.headers['x-service-delivery']))).toEqual(
        new Set([delivery.id]),
      );
      const [first, second, third] = requests.map((request) => request.at) as [number, number, number];
      // Lower bounds are the schedule; upper bounds only catch a stuck dispatcher.
      expect(second - first).toBeGreaterThanOrEqual(990);
      expect(second - first).toBeLessThan(2_500);
      expect(third - second).toBeGreaterThanOrEqual(4_990);
      expect(third - second).toBeLessThan(6_500);
    }
    // The redirect was never followed: nothing else was requested.
    expect(redirect.requests.every((request) => request.url === '/hook')).toBe(true);
  }, 30_000);

  it('treats a receiver that does not answer within the deadline as a failed attempt', async () => {
    // The deadline is injectable; the 10 s default is asserted above.
    t.app.webhooks.configure({ deadlineMs: 1_500 });
    const hanging = await receiver('hang');
    const webhook = await createWebhook({ url: hanging.url(), events: ['run.completed'] });
    const [id] = await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
    const record = await settled(webhook.id, id as string, 30_000);
    expect(record.status).toBe('failed');
    expect(record.attempts).toBe(3);
    expect(record.lastResponseCode).toBeNull();
    expect(record.lastError).toContain('timed out');
    const [first, second, third] = hanging.requests.map((request) => request.at) as [number, number, number];
    expect(hanging.requests).toHaveLength(3);
    // The deadline runs from the start of an attempt, before its connection is set up, while
    // the receiver notes arrival after it: the first attempt pays a full TLS handshake, later
    // ones may resume the cached session, so arrivals can be closer by that setup time.
    const setupSlack = 150;
    expect(second - first).toBeGreaterThanOrEqual(1_500 + 1_000 - setupSlack);
    expect(third - second).toBeGreaterThanOrEqual(1_500 + 5_000 - setupSlack);
  }, 30_000);

  it('retries a failed delivery with the same id, refusing while it is pending', async () => {
    t.app.webhooks.configure({ attemptDelaysMs: [0, 100, 200] });
    const hook = await receiver({ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 });
    const webhook = await createWebhook({ url: hook.url(), events: ['run.completed'] });
    const [id] = await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
    const cookie = await t.consoleCookie();
    const retry = () =>
      consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/webhooks/${webhook.id}/deliveries/${id}/retry`,
      });
    const early = await retry();
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toMatch(/pending/);
    const failed = await settled(webhook.id, id as string);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, lastResponseCode: 500 });

    const again = await retry();
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toMatchObject({ id, status: 'pending' });
    const done = await settled(webhook.id, id as string);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 4, lastResponseCode: 200, lastError: null });
    expect(hook.requests).toHaveLength(4);
    expect(new Set(hook.requests.map((request) => request.headers['x-service-delivery']))).toEqual(
      new Set([id]),
    );
    // Same exact bytes on every attempt, the body's deliveryId included.
    expect(new Set(hook.requests.map((request) => request.rawBody.toString('utf8')))).toEqual(
      new Set([done.body]),
    );

    const unknown = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: `/console/v1/webhooks/${webhook.id}/deliveries/${crypto.randomUUID()}/retry`,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('signs with the rotated secret from the next delivery on', async () => {
    const hook = await receiver();
    const webhook = await createWebhook({ url: hook.url(), events: ['run.completed'] });
    await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
    await hook.waitFor(1);
    const rotated = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/webhooks/${webhook.id}/rotate-secret`,
    });
    expect(rotated.statusCode).toBe(200);
    const secret = rotated.json().data.secret as string;
    expect(secret).not.toBe(webhook.secret);
    await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
    const [before, after] = await hook.waitFor(2);
    if (!before || !after) throw new Error('missing requests');
    const signatureOf = (request: typeof before) => String(request.headers['x-service-signature']);
    expect(verify(webhook.secret, before.rawBody, signatureOf(before))).toBe(true);
    expect(verify(secret, after.rawBody, signatureOf(after))).toBe(true);
    expect(verify(webhook.secret, after.rawBody, signatureOf(after))).toBe(false);
  });

  it('connects to the address it checked, and re-checks the URL before every attempt', async () => {
    const hook = await receiver();
    let answer = ['127.0.0.1'];
    t.app.webhooks.configure({
      attemptDelaysMs: [0, 100, 200],
      resolve: async (hostname) => {
        if (hostname !== 'hooks.example.test') throw new Error('ENOTFOUND');
        return answer.map((address) => ({ address, family: 4 as const }));
      },
    });
    // hooks.example.test exists only in the injected resolver: the request can only reach the
    // receiver through the dispatcher's pinned lookup, never through a second (system) resolution.
    const url = `https://hooks.example.test:${hook.port}/pinned`;
    const webhook = await createWebhook({ url, events: ['run.completed'] });
    const [first] = await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
    const ok = await settled(webhook.id, first as string);
    expect(ok.status).toBe('succeeded');
    expect(hook.requests[0]?.headers.host).toBe(`hooks.example.test:${hook.port}`);

    // The name now resolves to a public address first and a private one second: refused
    // before the attempt, so the receiver sees nothing.
    answer = ['93.184.216.34', '10.1.2.3'];
    const [second] = await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
    const refused = await settled(webhook.id, second as string);
    expect(refused).toMatchObject({ status: 'failed', attempts: 3, lastResponseCode: null });
    expect(refused.lastError).toContain('10.1.2.3');
    expect(hook.requests).toHaveLength(1);
  });

  it('reuses a kept-alive connection only for the same checked address', async () => {
    const hook = await startReceiver(certificate, [{ status: 200 }], { keepAliveMs: 10_000 });
    receivers.push(hook);
    let answer = '127.0.0.1';
    t.app.webhooks.configure({
      attemptDelaysMs: [0, 50, 50],
      // 127.0.0.2 is loopback too, but nothing listens there: a connection to it is refused.
      allowedTargets: ['127.0.0.1/32', '127.0.0.2/32'],
      resolve: async (hostname) => {
        if (hostname !== 'hooks.example.test') throw new Error('ENOTFOUND');
        return [{ address: answer, family: 4 }];
      },
    });
    const webhook = await createWebhook({
      url: `https://hooks.example.test:${hook.port}/reuse`,
      events: ['run.completed'],
    });
    const deliver = async () => {
      const [id] = await t.app.webhooks.enqueueRunDeliveries(finishedRun(t.bootstrap.organizationId));
      return settled(webhook.id, id as string);
    };
    expect((await deliver()).status).toBe('succeeded');
    expect((await deliver()).status).toBe('succeeded');
    // The second delivery came over the first one's connection (same client port).
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1]?.remotePort).toBe(hook.requests[0]?.remotePort);

    // The name now resolves elsewhere: the open connection to the old address is not used;
    // the attempts connect to the newly checked address (refused there) and fail.
    answer = '127.0.0.2';
    const moved = await deliver();
    expect(moved).toMatchObject({ status: 'failed', attempts: 3, lastResponseCode: null });
    expect(moved.lastError).toContain('ECONNREFUSED');
    expect(hook.requests).toHaveLength(2);

    answer = '127.0.0.1';
    expect((await deliver()).status).toBe('succeeded');
    expect(hook.requests).toHaveLength(3);
  });
});
