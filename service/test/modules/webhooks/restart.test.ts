import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCall,
  createPostgresDatabase,
  createTestApp,
  databaseKinds,
  type TestApp,
} from '../../helper.ts';
import {
  finishedRun,
  makeCertificate,
  type Receiver,
  type Reply,
  startDelivering,
  startReceiver,
} from './receiver.ts';

const certificate = makeCertificate();

describe.each(databaseKinds)('durable webhook delivery on %s', (database) => {
  let dataDir: string;
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  const open: Array<{ t: TestApp; stop: () => Promise<void> }> = [];
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-webhook-restart-'));
    if (database === 'postgres') {
      const created = await createPostgresDatabase();
      databaseUrl = created.url;
      drop = created.drop;
    }
  });
  afterEach(async () => {
    for (const instance of open.splice(0)) {
      await instance.stop();
      await instance.t.close();
    }
    await receiver?.close();
  });
  afterAll(async () => {
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** One service instance on the shared database, delivering in the background. */
  async function instance(): Promise<TestApp> {
    const t = await createTestApp({
      database,
      dataDir,
      databaseUrl,
      env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' },
    });
    t.app.webhooks.configure({ ca: certificate.cert, pollIntervalMs: 100 });
    open.push({ t, stop: await startDelivering(t.app) });
    return t;
  }

  async function shutdown(t: TestApp) {
    const index = open.findIndex((entry) => entry.t === t);
    const [entry] = open.splice(index, 1);
    await entry?.stop();
    await entry?.t.close();
  }

  async function webhookTo(t: TestApp, replies: Reply[]) {
    receiver = await startReceiver(certificate, replies);
    await t.ctx.db.deleteFrom('webhooks').execute();
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload: { url: receiver.url(), events: ['run.completed'] },
    });
    expect(response.statusCode, response.body).toBe(201);
    return { receiver, webhookId: response.json().data.id as string };
  }

  async function record(t: TestApp, id: string) {
    return t.ctx.db
      .selectFrom('webhookDeliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('condition not reached');
  }

  it('records the delivery before the first attempt and resumes it after a restart mid-attempt', async () => {
    const first = await instance();
    const { receiver: hook } = await webhookTo(first, ['hang', { status: 200 }]);
    const [id] = await first.app.webhooks.enqueueRunDeliveries(finishedRun(first.bootstrap.organizationId));
    if (!id) throw new Error('no delivery');
    await hook.waitFor(1);
    // The attempt hangs at the receiver: the record is already there, pending, with its body.
    const during = await record(first, id);
    expect(during.status).toBe('pending');
    expect(JSON.parse(during.body).deliveryId).toBe(id);
    await shutdown(first);

    const second = await instance();
    await hook.waitFor(2);
    const done = await until(async () => {
      const row = await record(second, id);
      return row.status === 'pending' ? undefined : row;
    });
    expect(done.status).toBe('succeeded');
    expect(done.lastResponseCode).toBe(200);
    expect(hook.requests.map((request) => request.headers['x-service-delivery'])).toEqual([id, id]);
    expect(hook.requests[1]?.rawBody.toString('utf8')).toBe(done.body);
  });

  it('resumes the retry schedule after a restart between attempts', async () => {
    const first = await instance();
    first.app.webhooks.configure({ attemptDelaysMs: [0, 1_500, 1_500] });
    const { receiver: hook } = await webhookTo(first, [{ status: 500 }, { status: 200 }]);
    const [id] = await first.app.webhooks.enqueueRunDeliveries(finishedRun(first.bootstrap.organizationId));
    if (!id) throw new Error('no delivery');
    const waiting = await until(async () => {
      const row = await record(first, id);
      return row.attempts === 1 ? row : undefined;
    });
    expect(waiting).toMatchObject({ status: 'pending', lastResponseCode: 500 });
    await shutdown(first);

    const second = await instance();
    const done = await until(async () => {
      const row = await record(second, id);
      return row.status === 'pending' ? undefined : row;
    });
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, lastResponseCode: 200 });
    expect(hook.requests).toHaveLength(2);
  });

  it('makes each attempt once when several instances deliver from one database', async () => {
    const a = await instance();
    const b = await instance();
    receiver = await startReceiver(certificate, [{ status: 200 }]);
    await a.ctx.db.deleteFrom('webhooks').execute();
    const cookie = await a.consoleCookie();
    for (let index = 0; index < 8; index += 1) {
      const response = await consoleCall(a.app, cookie, {
        method: 'POST',
        url: '/console/v1/webhooks',
        payload: { url: receiver.url(`/hook/${index}`), events: ['run.completed'] },
      });
      expect(response.statusCode).toBe(201);
    }
    const ids: string[] = [];
    for (let run = 0; run < 5; run += 1) {
      const source = run % 2 === 0 ? a : b;
      ids.push(
        ...(await source.app.webhooks.enqueueRunDeliveries(finishedRun(source.bootstrap.organizationId))),
      );
    }
    expect(ids).toHaveLength(40);
    await receiver.waitFor(40);
    await until(async () => {
      const pending = await a.ctx.db
        .selectFrom('webhookDeliveries')
        .select('id')
        .where('status', '!=', 'succeeded')
        .execute();
      return pending.length === 0 ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const received = receiver.requests.map((request) => String(request.headers['x-service-delivery']));
    expect(received).toHaveLength(40);
    expect(new Set(received)).toEqual(new Set(ids));
  });
});
