import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { consoleCall, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';
import {
  finishedRun,
  makeCertificate,
  type Receiver,
  startDelivering,
  startReceiver,
} from '../webhooks/receiver.ts';

const certificate = makeCertificate();
const tenantOwner = { email: 'owner@tenant.example', password: 'tenant-password' };
const relayPassword = 'relay-Pa55word-never-shown';

describe.each(databaseKinds)('install settings on %s', (database) => {
  let t: TestApp;
  let admin: string;
  let owner: string;
  const logs: string[] = [];
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);

  beforeAll(async () => {
    t = await createTestApp({
      database,
      env: { LOG_LEVEL: 'trace' },
      logStream: { write: (line) => void logs.push(line) },
    });
    admin = await t.consoleCookie();
    const created = await as(admin, {
      method: 'POST',
      url: '/console/v1/install/organizations',
      payload: { name: 'Tenant', ownerEmail: tenantOwner.email, ownerPassword: tenantOwner.password },
    });
    expect(created.statusCode, created.body).toBe(201);
    owner = await login(t.app, tenantOwner.email, tenantOwner.password);
  });
  afterAll(async () => t?.close());

  it('is for install admins only: an organization owner gets 403 on read and change', async () => {
    for (const inject of [
      { method: 'GET', url: '/console/v1/install/settings' },
      {
        method: 'PUT',
        url: '/console/v1/install/settings',
        payload: { webhookAllowedTargets: ['10.0.0.0/8'] },
      },
    ] as const) {
      expect((await t.app.inject(inject)).statusCode).toBe(401);
      const refused = await as(owner, inject);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('INSTALL_ADMIN_REQUIRED');
    }
    const read = await as(admin, { method: 'GET', url: '/console/v1/install/settings' });
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({
      runnerSlots: expect.any(Number),
      webhookAllowedTargets: [],
      runnerEgress: { deny: [], allow: [] },
      smtpRelay: null,
    });
  });

  it('normalises the allow-list and egress rules, and refuses bad entries with a 400 naming them', async () => {
    const bad = await as(admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: { webhookAllowedTargets: ['10.0.0.0/8', 'intranet'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      code: 'INSTALL_SETTING_INVALID',
      message: 'webhookAllowedTargets: intranet is not an IP address or CIDR range',
    });
    const badRule = await as(admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: { runnerEgress: { deny: ['10.0.0.0/99'], allow: [] } },
    });
    expect(badRule.statusCode).toBe(400);
    expect(badRule.json().message).toMatch(/^runnerEgress\.deny: .*10\.0\.0\.0\/99/);
    const good = await as(admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: {
        webhookAllowedTargets: ['10.1.2.3', '192.168.0.0/16'],
        runnerEgress: { deny: ['10.0.0.0/8', '*.internal.example:5432'], allow: ['10.9.0.0/16'] },
      },
    });
    expect(good.statusCode, good.body).toBe(200);
    expect(good.json().data).toMatchObject({
      webhookAllowedTargets: ['10.1.2.3/32', '192.168.0.0/16'],
      runnerEgress: { deny: ['10.0.0.0/8', '*.internal.example:5432'], allow: ['10.9.0.0/16'] },
      updatedBy: 'admin@localhost',
    });
  });

  it('stores the SMTP password sealed: never returned, logged, audited or kept as plain text', async () => {
    const set = await as(admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: {
        smtpRelay: {
          host: 'smtp.example.com',
          port: 587,
          security: 'starttls',
          user: 'alerts',
          password: relayPassword,
          from: 'stepdeck@example.com',
        },
      },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.smtpRelay).toEqual({
      host: 'smtp.example.com',
      port: 587,
      security: 'starttls',
      user: 'alerts',
      passwordSet: true,
      from: 'stepdeck@example.com',
    });
    // Changing the host without a password keeps the stored one.
    const kept = await as(admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: {
        smtpRelay: {
          host: 'relay.example.com',
          port: 465,
          security: 'tls',
          user: 'alerts',
          from: 'a@example.com',
        },
      },
    });
    expect(kept.json().data.smtpRelay).toMatchObject({ host: 'relay.example.com', passwordSet: true });
    const read = await as(admin, { method: 'GET', url: '/console/v1/install/settings' });
    const stored = await t.ctx.db.selectFrom('installSettings').selectAll().execute();
    const audit = await as(admin, { method: 'GET', url: '/console/v1/install/audit-log?limit=100' });
    const entries = audit.json().data as Array<{ action: string; status: number; detail: string | null }>;
    const changes = entries.filter((entry) => entry.action === 'PUT /console/v1/install/settings');
    expect(changes.map((entry) => entry.status)).toEqual(expect.arrayContaining([200, 400, 403]));
    expect(changes.find((entry) => entry.detail?.includes('password replaced'))?.detail).toContain(
      'smtpRelay smtp.example.com:587 starttls user=alerts password replaced',
    );
    for (const text of [set.body, kept.body, read.body, JSON.stringify(stored), audit.body, logs.join('')])
      expect(text).not.toContain(relayPassword);
    expect(logs.length).toBeGreaterThan(0);
    const relay = JSON.parse(stored.find((row) => row.key === 'smtpRelay')?.value ?? '{}');
    expect(relay.passwordSealed).toMatch(/^sdbox:v1:[0-9a-f]{16}:[^:]+:[^:]+:[^:]+$/);
  });
});

describe('the install allow-list under NODE_ENV=production', () => {
  let t: TestApp;
  let stop: () => Promise<void>;
  let receiver: Receiver;
  const allow = (targets: string[]) =>
    consoleCall(t.app, admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: { webhookAllowedTargets: targets },
    });
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { NODE_ENV: 'production', PUBLIC_URL: 'https://stepdeck.example.com' } });
    expect(t.config.production).toBe(true);
    t.app.webhooks.configure({ ca: certificate.cert, pollIntervalMs: 100, attemptDelaysMs: [0] });
    stop = await startDelivering(t.app);
    receiver = await startReceiver(certificate);
    admin = await t.consoleCookie();
  });
  afterEach(async () => {
    await t.ctx.db.deleteFrom('webhookDeliveries').execute();
  });
  afterAll(async () => {
    await stop?.();
    await receiver?.close();
    await t?.close();
  });

  it('keeps WEBHOOK_ALLOWED_TARGETS refused in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' })).toThrow(
      /WEBHOOK_ALLOWED_TARGETS: must be empty when NODE_ENV=production/,
    );
  });

  it('refuses a loopback receiver until an install admin allows it, then delivers to it; refuses again once removed', async () => {
    const create = () =>
      consoleCall(t.app, admin, {
        method: 'POST',
        url: '/console/v1/webhooks',
        payload: { url: receiver.url('/jenkins'), events: ['run.failed'] },
      });
    const refused = await create();
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'WEBHOOK_URL_REFUSED',
      message: expect.stringContaining('loopback'),
    });

    expect((await allow(['127.0.0.1'])).statusCode).toBe(200);
    const created = await create();
    expect(created.statusCode, created.body).toBe(201);
    const webhookId = created.json().data.id as string;
    t.ctx.events.emit('run.finished', finishedRun(t.bootstrap.organizationId, { status: 'failed' }));
    const [request] = await receiver.waitFor(1);
    expect(request?.url).toBe('/jenkins');
    expect(JSON.parse(String(request?.rawBody)).event).toBe('run.failed');

    expect((await allow([])).statusCode).toBe(200);
    t.ctx.events.emit('run.finished', finishedRun(t.bootstrap.organizationId, { status: 'failed' }));
    const deadline = Date.now() + 20_000;
    let last: { status: string; lastError: string | null } | undefined;
    while (Date.now() < deadline) {
      const list = await consoleCall(t.app, admin, {
        method: 'GET',
        url: `/console/v1/webhooks/${webhookId}/deliveries`,
      });
      last = (list.json().data as Array<{ status: string; lastError: string | null }>).find(
        (delivery) => delivery.status === 'failed',
      );
      if (last) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(last?.lastError).toMatch(/must not point to a private, loopback/);
    expect(receiver.requests).toHaveLength(1);
  });
});
