import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as organizationQuotas from '../../../src/adapters/db/migrations/0021_organization_quotas.ts';
import { consoleCall, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';
import { createTest, waitForStatus } from '../runs/helpers.ts';

const MiB = 1024 * 1024;
const TiB = 1024 * 1024 * MiB;
const tenants = [
  { name: 'Small tenant', email: 'owner@small.example', password: 'small-password' },
  { name: 'Default tenant', email: 'owner@default.example', password: 'default-password' },
];

interface AuditEntry {
  actor: { label: string };
  status: number;
  detail?: string | null;
  resourceId: string | null;
}

describe.each(databaseKinds)('organization quotas on %s', (database) => {
  let t: TestApp;
  let admin: string;
  const owners: string[] = [];
  const ids: string[] = [];
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const limitsOf = (index: number) => `/console/v1/install/organizations/${ids[index]}/limits`;
  const setLimits = (index: number, payload: object) =>
    as(admin, { method: 'PUT', url: limitsOf(index), payload });
  const listed = async (index: number) =>
    (await as(admin, { method: 'GET', url: '/console/v1/install/organizations' }))
      .json()
      .data.find((organization: { id: string }) => organization.id === ids[index]);
  /** A key of the tenant's own, made by its owner (the inbox API reads with keys). */
  const keyOf = async (index: number) => {
    const created = await as(owners[index] as string, {
      method: 'POST',
      url: '/console/v1/api-keys',
      payload: { name: 'inbox reader', scopes: ['emailInbox:read'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data.key as string;
  };
  const inboxLimitsWith = (key: string) =>
    t.app.inject({ method: 'GET', url: '/v1/email-inboxes/limits', headers: { 'x-api-key': key } });

  beforeAll(async () => {
    t = await createTestApp({ database, env: { ORG_ARTIFACTS_MAX_BYTES: String(64 * MiB) } });
    admin = await t.consoleCookie();
    for (const tenant of tenants) {
      const created = await as(admin, {
        method: 'POST',
        url: '/console/v1/install/organizations',
        payload: { name: tenant.name, ownerEmail: tenant.email, ownerPassword: tenant.password },
      });
      expect(created.statusCode, created.body).toBe(201);
      ids.push(created.json().data.id);
      owners.push(await login(t.app, tenant.email, tenant.password));
    }
  });
  afterAll(async () => t?.close());

  it("shows the install's defaults until an install admin sets both; an owner is refused", async () => {
    expect(await listed(0)).toMatchObject({
      artifactQuotaBytes: null,
      inboxLimit: null,
      defaults: { artifactQuotaBytes: 64 * MiB, inboxLimit: 5 },
    });
    for (const url of [limitsOf(0), '/console/v1/organization/limits']) {
      const refused = await as(owners[0] as string, {
        method: 'PUT',
        url,
        payload: { artifactQuotaBytes: TiB, inboxLimit: 1000 },
      });
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json().code).toBe('INSTALL_ADMIN_REQUIRED');
    }
    const set = await setLimits(0, { artifactQuotaBytes: 2 * MiB, inboxLimit: 1 });
    expect(set.statusCode, set.body).toBe(200);
    // Additive: the cap stays as it was (a new organization's cap is the runner slots).
    expect(set.json().data).toEqual({
      concurrencyCap: expect.any(Number),
      artifactQuotaBytes: 2 * MiB,
      inboxLimit: 1,
    });
    expect(await listed(0)).toMatchObject({ artifactQuotaBytes: 2 * MiB, inboxLimit: 1 });
    expect(await listed(1)).toMatchObject({ artifactQuotaBytes: null, inboxLimit: null });
    // The owner reads the quotas that apply; the other tenant's are the install's defaults.
    const own = await as(owners[0] as string, { method: 'GET', url: '/console/v1/organization' });
    expect(own.json().data.quotas).toEqual({
      artifactQuotaBytes: 2 * MiB,
      artifactQuotaIsDefault: false,
      inboxLimit: 1,
      inboxLimitIsDefault: false,
    });
    const other = await as(owners[1] as string, { method: 'GET', url: '/console/v1/organization' });
    expect(other.json().data.quotas).toEqual({
      artifactQuotaBytes: 64 * MiB,
      artifactQuotaIsDefault: true,
      inboxLimit: 5,
      inboxLimitIsDefault: true,
    });
    // Setting the cap alone leaves the quotas; the largest quota is accepted.
    expect((await setLimits(0, { concurrencyCap: 1 })).json().data).toEqual({
      concurrencyCap: 1,
      artifactQuotaBytes: 2 * MiB,
      inboxLimit: 1,
    });
    expect((await setLimits(1, { artifactQuotaBytes: TiB })).json().data.artifactQuotaBytes).toBe(TiB);
    // null goes back to the default.
    expect((await setLimits(1, { artifactQuotaBytes: null })).json().data.artifactQuotaBytes).toBeNull();

    const audit = await as(admin, {
      method: 'GET',
      url: `/console/v1/install/audit-log?limit=100&action=${encodeURIComponent('/limits')}`,
    });
    const entries = audit.json().data as AuditEntry[];
    // Named by the organization changed (the actor's own is the install's).
    const tenantEntries = entries.filter((entry) => entry.resourceId === ids[0]);
    expect(tenantEntries.map((entry) => entry.detail)).toEqual(
      expect.arrayContaining([
        'artifactQuotaBytes: default → 2097152; inboxLimit: default → 1',
        expect.stringMatching(/^concurrencyCap: \d+ → 1$/),
      ]),
    );
    expect(entries.find((entry) => entry.detail === `artifactQuotaBytes: ${TiB} → default`)).toMatchObject({
      status: 200,
      actor: { label: t.bootstrap.adminEmail },
    });
    // The owner's refusals are audited too.
    expect(entries.filter((entry) => entry.status === 403).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses out-of-range quotas with a 400 naming the field, and changes nothing', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ artifactQuotaBytes: MiB - 1 }, /artifactQuotaBytes must be at least 1 MiB \(1048576\)/],
      [{ artifactQuotaBytes: TiB + 1 }, /artifactQuotaBytes must be at most 1 TiB \(1099511627776\)/],
      [{ artifactQuotaBytes: 1.5 * MiB + 0.5 }, /artifactQuotaBytes must be a whole number of bytes/],
      [{ artifactQuotaBytes: '10GB' }, /artifactQuotaBytes must be a number of bytes, or null/],
      [{ inboxLimit: 0 }, /inboxLimit must be at least 1/],
      [{ inboxLimit: 1001 }, /inboxLimit must be at most 1000/],
      [{ inboxLimit: 2.5 }, /inboxLimit must be an integer/],
      [{ inboxLimit: 'many' }, /inboxLimit must be a number, or null/],
      [{}, /give at least one of concurrencyCap, artifactQuotaBytes, inboxLimit/],
      // One bad field refuses the whole change.
      [{ inboxLimit: 3, artifactQuotaBytes: 0 }, /artifactQuotaBytes must be at least 1 MiB/],
    ];
    for (const [payload, message] of cases) {
      const refused = await setLimits(0, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json().code).toBe('INVALID_REQUEST');
      expect(refused.json().message).toMatch(message);
    }
    expect(await listed(0)).toMatchObject({ artifactQuotaBytes: 2 * MiB, inboxLimit: 1 });
    const unknown = await as(admin, {
      method: 'PUT',
      url: '/console/v1/install/organizations/00000000-0000-4000-8000-000000000000/limits',
      payload: { inboxLimit: 3 },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it("holds an organization to its inbox limit with the spec's 400 while another creates five", async () => {
    const create = (index: number) =>
      as(owners[index] as string, { method: 'POST', url: '/console/v1/email-inboxes', payload: {} });
    expect((await create(0)).statusCode).toBe(201);
    const second = await create(0);
    expect(second.statusCode).toBe(400);
    expect(second.json()).toEqual({ message: 'inbox limit reached', code: 'INBOX_LIMIT_REACHED' });
    for (let index = 0; index < 5; index += 1) expect((await create(1)).statusCode).toBe(201);
    expect((await create(1)).json()).toEqual({ message: 'inbox limit reached', code: 'INBOX_LIMIT_REACHED' });

    const small = await inboxLimitsWith(await keyOf(0));
    expect(small.statusCode).toBe(200);
    // The spec's shape, with the organization's own maxPerOrg.
    expect(small.json()).toEqual({
      data: { maxPerOrg: 1, maxMessages: 1000, messageRetentionHours: 12, bodyMaxBytes: 131072 },
    });
    expect((await inboxLimitsWith(await keyOf(1))).json().data.maxPerOrg).toBe(5);
    const console = await as(owners[0] as string, { method: 'GET', url: '/console/v1/email-inboxes/limits' });
    expect(console.json().data.maxPerOrg).toBe(1);

    // Raised, the organization creates up to the new limit.
    const raised = await setLimits(0, { inboxLimit: 2 });
    expect(raised.statusCode).toBe(200);
    // The quota not named stays as it was.
    expect(raised.json().data.artifactQuotaBytes).toBe(2 * MiB);
    expect(await listed(0)).toMatchObject({ artifactQuotaBytes: 2 * MiB, inboxLimit: 2 });
    expect((await create(0)).statusCode).toBe(201);
    expect((await create(0)).statusCode).toBe(400);
    // Back to the default: five.
    expect((await setLimits(0, { inboxLimit: null })).json().data.inboxLimit).toBeNull();
    expect((await create(0)).statusCode).toBe(201);
  });
});

/** `/random?bytes=N`: N bytes of base64 noise (incompressible: a trace keeps its size). */
async function startNoise() {
  const noise = Buffer.from(randomBytes(2 * MiB).toString('base64'));
  const server = http.createServer((request, response) => {
    const bytes = Number(new URL(request.url ?? '/', 'http://localhost').searchParams.get('bytes') ?? 1024);
    response.setHeader('content-type', 'text/plain');
    response.end(noise.subarray(0, bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("an organization's artifact quota in place of ORG_ARTIFACTS_MAX_BYTES", () => {
  let t: TestApp;
  let noise: Awaited<ReturnType<typeof startNoise>>;
  beforeAll(async () => {
    noise = await startNoise();
    t = await createTestApp({
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000', ORG_ARTIFACTS_MAX_BYTES: String(1024 * MiB) },
    });
  });
  afterAll(async () => {
    await t?.close();
    await noise?.close();
  });

  it('keeps what fits under a 1 MiB quota and fails the run naming the quota', async () => {
    const cookie = await t.consoleCookie();
    const organization = await consoleCall(t.app, cookie, { method: 'GET', url: '/console/v1/organization' });
    const organizationId = organization.json().data.id as string;
    const set = await consoleCall(t.app, cookie, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${organizationId}/limits`,
      payload: { artifactQuotaBytes: MiB },
    });
    expect(set.statusCode, set.body).toBe(200);

    const testId = await createTest(t, {
      name: 'large trace',
      metadata: { type: 'api' },
      steps: [
        {
          name: 'first call',
          action: { name: 'request', method: 'GET', url: `${noise.url}/random?bytes=${900 * 1024}` },
        },
        {
          name: 'second call',
          action: { name: 'request', method: 'GET', url: `${noise.url}/random?bytes=${900 * 1024}` },
        },
        { name: 'ok', action: { name: 'assertStatus', value: 200 } },
      ],
    });
    const started = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { config: { use: { trace: 'on', screenshot: 'off' } } },
    });
    expect(started.statusCode, started.body).toBe(200);
    const runId = started.json().data.runId as string;
    const ended = await waitForStatus(t, runId, ['completed', 'failed']);
    const runnerError = (ended.report as { runTypeInfo?: { runnerError?: string | null } } | null)
      ?.runTypeInfo?.runnerError;
    expect(ended.status).toBe('failed');
    expect(String(runnerError)).toMatch(
      /^the organization's stored run artifacts passed the organization's artifact quota \(1 MiB\): (kept|stored) [\d.]+ (bytes|KiB|MiB), left out \d+ file\(s\): /,
    );
    // The test itself passed; what fits is stored (the log), the trace is left out with a note.
    expect(ended.stats).toMatchObject({ passed: 1, failed: 0, total: 1 });
    const log = String(await t.ctx.blobs.get(`runs/${runId}/test-run.log`));
    expect(log).toContain("the artifacts passed the organization's artifact quota (1 MiB)");
    const counted = await t.ctx.db
      .selectFrom('runArtifacts')
      .select((eb) => eb.fn.sum<number>('bytes').as('bytes'))
      .executeTakeFirst();
    expect(Number(counted?.bytes)).toBeGreaterThan(0);
    expect(Number(counted?.bytes)).toBeLessThanOrEqual(MiB);
  }, 300_000);
});

describe('the quota migration on an install that already ran a later one', () => {
  it('runs 0021 at the next start instead of refusing the database', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-quotas-'));
    try {
      // An install migrated before 0021 existed: every migration but this one, 0022 included.
      const before = await createTestApp({ dataDir });
      await organizationQuotas.down(before.ctx.db);
      await before.ctx.db
        .deleteFrom('kysely_migration' as never)
        .where('name' as never, '=', '0021_organization_quotas' as never)
        .execute();
      await before.close();
      const after = await createTestApp({ dataDir });
      try {
        const names = (await after.ctx.db
          .selectFrom('kysely_migration' as never)
          .select('name' as never)
          .execute()) as Array<{ name: string }>;
        expect(names.map((row) => row.name)).toEqual(
          expect.arrayContaining(['0021_organization_quotas', '0022_test_health']),
        );
        const rows = await after.ctx.db
          .selectFrom('organizations')
          .select(['artifactQuotaBytes', 'inboxLimit'])
          .execute();
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((row) => row.artifactQuotaBytes === null && row.inboxLimit === null)).toBe(true);
      } finally {
        await after.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
