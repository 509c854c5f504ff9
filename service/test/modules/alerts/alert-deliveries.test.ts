import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCall,
  createPostgresDatabase,
  createTestApp,
  databaseKinds,
  type TestApp,
} from '../../helper.ts';
import { finishedRun, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';

const certificate = makeCertificate();

type Delivery = {
  runId: string;
  event: string;
  status: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  completedAt: string | null;
};

/**
 * Alerts are recorded as deliveries before any attempt, retried on a schedule, and resumed by
 * the next app when one stops with an alert still owed: a chat outage or a restart loses none.
 */
describe.each(databaseKinds)('durable alert deliveries on %s', (database) => {
  let receiver: Receiver;
  let dataDir: string;
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const apps: TestApp[] = [];

  const open = async (attemptDelaysMs: number[]) => {
    const t = await createTestApp({ database, dataDir, clock, ...(databaseUrl ? { databaseUrl } : {}) });
    apps.push(t);
    t.app.alerts.configure({ ca: certificate.cert, attemptDelaysMs });
    // What the app's background work starts on ready, after the test CA is in place.
    t.app.alerts.start();
    return t;
  };
  /** Closes an app, its channels gone: the apps share one database, and the next test's run hears only its own. */
  const closeApp = async (t: TestApp) => {
    await t.ctx.db.deleteFrom('alertChannels').execute();
    await t.close();
    apps.splice(apps.indexOf(t), 1);
  };
  const call = async (t: TestApp, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    consoleCall(t.app, await t.consoleCookie(), { method, url, ...(payload ? { payload } : {}) });
  const deliveriesOf = async (t: TestApp, channelId: string) => {
    const response = await call(
      t,
      'GET',
      `/console/v1/projects/${t.bootstrap.projectId}/alert-channels/${channelId}/deliveries`,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as Delivery[];
  };
  const settled = async (t: TestApp, channelId: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [latest] = await deliveriesOf(t, channelId);
      if (latest && latest.status !== 'pending') return latest;
      if (Date.now() > deadline) throw new Error(`delivery still pending: ${JSON.stringify(latest)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const slackChannel = async (t: TestApp, pathname: string) => {
    const allowed = await call(t, 'PUT', '/console/v1/install/settings', {
      webhookAllowedTargets: ['127.0.0.1'],
    });
    expect(allowed.statusCode, allowed.body).toBe(200);
    const created = await call(t, 'POST', `/console/v1/projects/${t.bootstrap.projectId}/alert-channels`, {
      kind: 'slack',
      name: `QA ${pathname}`,
      url: receiver.url(pathname),
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data.id as string;
  };
  const failedRun = (t: TestApp) =>
    finishedRun(t.bootstrap.organizationId, {
      status: 'failed',
      project: { id: t.bootstrap.projectId, name: 'Default' },
      target: { type: 'test', id: crypto.randomUUID(), name: 'checkout' },
    });

  beforeAll(async () => {
    receiver = await startReceiver(certificate);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-alert-deliveries-'));
    if (database === 'postgres') ({ url: databaseUrl, drop } = await createPostgresDatabase());
  });
  afterAll(async () => {
    for (const t of apps) await t.close().catch(() => undefined);
    await drop?.();
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('retries a receiver that fails twice and delivers on the third attempt, showing each step', async () => {
    const t = await open([0, 1_500, 100]);
    const channelId = await slackChannel(t, '/services/flaky');
    receiver.replies.splice(0, receiver.replies.length, { status: 500 }, { status: 500 }, { status: 200 });
    receiver.requests.splice(0);
    const run = failedRun(t);
    t.ctx.events.emit('run.finished', run);
    await t.app.alerts.pending();

    // The first attempt is made at once; the second is due 1.5 s later.
    const [afterFirst] = await deliveriesOf(t, channelId);
    expect(afterFirst).toMatchObject({
      runId: run.runId,
      event: 'failed',
      status: 'pending',
      attempts: 1,
      lastError: 'Expected HTTP 2xx, got 500: ok',
      completedAt: null,
    });
    expect(Date.parse(afterFirst?.nextAttemptAt ?? '')).toBeGreaterThan(Date.now());

    const delivered = await settled(t, channelId);
    expect(delivered).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(receiver.requests).toHaveLength(3);
    // Every attempt sends the alert recorded when the run ended, byte for byte.
    const bodies = new Set(receiver.requests.map((request) => String(request.rawBody)));
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0] ?? '{}').text).toMatch(/^Run failed: Nightly checkout/);

    const channel = await call(
      t,
      'GET',
      `/console/v1/projects/${t.bootstrap.projectId}/alert-channels/${channelId}`,
    );
    expect(channel.json().data).toMatchObject({ lastError: null, lastSentAt: expect.any(String) });
    // Heard again (a recovered run re-announced), the run's alert is not recorded twice.
    t.ctx.events.emit('run.finished', run);
    await t.app.alerts.pending();
    expect(await deliveriesOf(t, channelId)).toHaveLength(1);
    await closeApp(t);
  }, 60_000);

  it('gives up after the last attempt and says why', async () => {
    const t = await open([0, 100]);
    const channelId = await slackChannel(t, '/services/down');
    receiver.replies.splice(0, receiver.replies.length, { status: 503 });
    t.ctx.events.emit('run.finished', failedRun(t));
    const failed = await settled(t, channelId);
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastError: 'Expected HTTP 2xx, got 503: ok',
      nextAttemptAt: null,
      completedAt: expect.any(String),
    });
    await closeApp(t);
  }, 60_000);

  it('sends an alert left pending by an app that stopped, from the next app on the same data', async () => {
    const first = await open([0, 60_000, 60_000]);
    const channelId = await slackChannel(first, '/services/restart');
    receiver.replies.splice(0, receiver.replies.length, { status: 502 }, { status: 200 });
    receiver.requests.splice(0);
    first.ctx.events.emit('run.finished', failedRun(first));
    await first.app.alerts.pending();
    const [owed] = await deliveriesOf(first, channelId);
    expect(owed).toMatchObject({ status: 'pending', attempts: 1 });
    await first.close();
    apps.splice(apps.indexOf(first), 1);

    // A minute later, a new app on the same database: its sweep finds the attempt due.
    offsetMs += 61_000;
    const second = await open([0, 60_000, 60_000]);
    const delivered = await settled(second, channelId);
    expect(delivered).toMatchObject({ status: 'succeeded', attempts: 2, lastError: null });
    expect(receiver.requests.map((request) => request.url)).toEqual([
      '/services/restart',
      '/services/restart',
    ]);
  }, 90_000);
});
