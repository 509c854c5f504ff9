import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../src/modules/webhooks/url-guard.ts';
import { consoleCall, createPostgresDatabase, createTestApp, type TestApp } from '../../helper.ts';
import { finishedRun, makeCertificate, type Receiver, startDelivering, startReceiver } from './receiver.ts';

const certificate = makeCertificate();
/** Longer than any test: a delivery that happens was started by a queue job, not a poll. */
const noPolling = 3_600_000;

/**
 * Several service instances on one PostgreSQL database, delivering through the pg-boss queue.
 * Each instance resolves the receiver's name with its own counting resolver: the URL is checked
 * before every attempt, so an instance's count is the number of attempts it made.
 */
describe('webhook attempts through the job queue on postgres', () => {
  let dataDir: string;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  const open: Array<{ t: TestApp; stop?: () => Promise<void> }> = [];
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-webhook-queue-'));
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    drop = created.drop;
  });
  afterEach(async () => {
    for (const entry of open.splice(0)) {
      await entry.stop?.();
      await entry.t.close();
    }
    await receiver?.close();
  });
  afterAll(async () => {
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** An instance on the shared database; `delivers` starts its dispatcher (polling off). */
  async function instance(options: { delivers: boolean; attemptDelaysMs: number[] }) {
    const t = await createTestApp({
      database: 'postgres',
      dataDir,
      databaseUrl,
      env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' },
    });
    const counter = { attempts: 0 };
    const resolve: Resolver = async (hostname) => {
      if (hostname !== 'hooks.example.test') throw new Error('ENOTFOUND');
      counter.attempts += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    t.app.webhooks.configure({
      ca: certificate.cert,
      pollIntervalMs: noPolling,
      attemptDelaysMs: options.attemptDelaysMs,
      resolve,
    });
    const entry: { t: TestApp; stop?: () => Promise<void> } = { t };
    open.push(entry);
    if (options.delivers) entry.stop = await startDelivering(t.app);
    return { t, counter };
  }

  async function createWebhooks(t: TestApp, count: number) {
    if (!receiver) throw new Error('no receiver');
    await t.ctx.db.deleteFrom('webhooks').execute();
    const cookie = await t.consoleCookie();
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const response = await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/webhooks',
        payload: {
          url: `https://hooks.example.test:${receiver.port}/hook/${index}`,
          events: ['run.completed'],
        },
      });
      expect(response.statusCode, response.body).toBe(201);
      ids.push(response.json().data.id);
    }
    return ids;
  }

  async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('condition not reached');
  }

  const record = (t: TestApp, id: string) =>
    t.ctx.db.selectFrom('webhookDeliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('lets an instance that did not enqueue deliver, and hands a console retry to it', async () => {
    // A serves the API only (no dispatcher); B delivers and never polls.
    const a = await instance({ delivers: false, attemptDelaysMs: [0, 100, 100] });
    const b = await instance({ delivers: true, attemptDelaysMs: [0, 100, 100] });
    receiver = await startReceiver(certificate, [
      { status: 500 },
      { status: 500 },
      { status: 500 },
      { status: 200 },
    ]);
    const [webhookId] = await createWebhooks(a.t, 1);
    a.counter.attempts = 0;

    const [id] = await a.t.app.webhooks.enqueueRunDeliveries(finishedRun(a.t.bootstrap.organizationId));
    if (!id || !webhookId) throw new Error('no delivery');
    const failed = await until(async () => {
      const row = await record(a.t, id);
      return row.status === 'failed' ? row : undefined;
    });
    expect(failed).toMatchObject({ attempts: 3, lastResponseCode: 500 });
    expect(b.counter.attempts).toBe(3);
    expect(a.counter.attempts).toBe(0);

    // The console retry is served by A; the queue job reaches B, which makes the attempt.
    const retry = await consoleCall(a.t.app, await a.t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/webhooks/${webhookId}/deliveries/${id}/retry`,
    });
    expect(retry.statusCode, retry.body).toBe(200);
    const done = await until(async () => {
      const row = await record(a.t, id);
      return row.status === 'succeeded' ? row : undefined;
    });
    expect(done).toMatchObject({ attempts: 4, lastResponseCode: 200 });
    expect(b.counter.attempts).toBe(4);
    expect(a.counter.attempts).toBe(0);
    expect(receiver.requests.map((request) => request.headers['x-service-delivery'])).toEqual([
      id,
      id,
      id,
      id,
    ]);
  });

  it('makes each attempt exactly once when two instances enqueue and deliver', async () => {
    const delays = [0, 150, 150];
    const a = await instance({ delivers: true, attemptDelaysMs: delays });
    const b = await instance({ delivers: true, attemptDelaysMs: delays });
    receiver = await startReceiver(certificate, [{ status: 500 }]);
    await createWebhooks(a.t, 6);
    a.counter.attempts = 0;

    const ids: string[] = [];
    for (let run = 0; run < 6; run += 1) {
      const source = run % 2 === 0 ? a.t : b.t;
      ids.push(
        ...(await source.app.webhooks.enqueueRunDeliveries(finishedRun(source.bootstrap.organizationId))),
      );
    }
    expect(ids).toHaveLength(36);
    await until(async () => {
      const rows = await a.t.ctx.db.selectFrom('webhookDeliveries').select(['status']).execute();
      return rows.length === 36 && rows.every((row) => row.status === 'failed') ? true : undefined;
    });
    // Any duplicate attempt would still be on its way: give it time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const perDelivery = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = String(request.headers['x-service-delivery']);
      perDelivery.set(id, (perDelivery.get(id) ?? 0) + 1);
    }
    expect(new Set(perDelivery.keys())).toEqual(new Set(ids));
    expect([...perDelivery.values()].every((count) => count === 3)).toBe(true);
    expect(receiver.requests).toHaveLength(108);
    expect(a.counter.attempts + b.counter.attempts).toBe(108);
    const rows = await a.t.ctx.db.selectFrom('webhookDeliveries').select(['attempts']).execute();
    expect(rows.every((row) => row.attempts === 3)).toBe(true);
    console.log(`attempts made by instance A: ${a.counter.attempts}, by instance B: ${b.counter.attempts}`);
  });
});
