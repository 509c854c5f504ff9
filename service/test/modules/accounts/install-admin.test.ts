import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';

const tenantOwner = { email: 'owner@tenant.example', password: 'tenant-password' };

describe.each(databaseKinds)('install administration on %s', (database) => {
  let t: TestApp;
  let admin: string;
  let owner: string;
  let tenant: { id: string; projectId: string };
  let now = Date.parse('2026-11-01T10:00:00.000Z');
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);

  beforeAll(async () => {
    t = await createTestApp({ database, env: { RUNNER_SLOTS: '3' }, clock: { now: () => new Date(now) } });
    admin = await t.consoleCookie();
    const created = await as(admin, {
      method: 'POST',
      url: '/console/v1/install/organizations',
      payload: { name: 'Tenant', ownerEmail: tenantOwner.email, ownerPassword: tenantOwner.password },
    });
    expect(created.statusCode).toBe(201);
    tenant = created.json().data;
    owner = await login(t.app, tenantOwner.email, tenantOwner.password);
  });
  afterAll(async () => t?.close());

  it('keeps every install route to install admins: 401 signed out, 403 naming who can for an owner', async () => {
    const routes = [...t.app.accessRules].filter(([key]) => key.includes(' /console/v1/install/'));
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const [key, rule] of routes) {
      expect(rule, key).toEqual({ kind: 'session', access: 'installAdmin' });
      const [method, pattern] = key.split(' ') as [InjectOptions['method'], string];
      const url = pattern.replace(/:[a-zA-Z]+/g, tenant.id);
      const payload = method === 'GET' || method === 'DELETE' ? undefined : {};
      const signedOut = await t.app.inject({ method, url, payload });
      expect(signedOut.statusCode, key).toBe(401);
      const refused = await as(owner, { method, url, payload });
      expect(refused.statusCode, key).toBe(403);
      expect(refused.json().code, key).toBe('INSTALL_ADMIN_REQUIRED');
      expect(refused.json().message, key).toMatch(/Only an install administrator/);
    }
    const session = await as(admin, { method: 'GET', url: '/console/v1/session' });
    expect(session.json().data.installAdmin).toBe(true);
    expect((await as(owner, { method: 'GET', url: '/console/v1/session' })).json().data.installAdmin).toBe(
      false,
    );
  });

  it('refuses an owner their own subscription and limits; the install admin sets them, capped by the runner slots', async () => {
    for (const change of [
      { method: 'PUT', url: '/console/v1/subscription', payload: { active: true } },
      { method: 'PUT', url: '/console/v1/organization/limits', payload: { concurrencyCap: 3 } },
    ] as const) {
      const refused = await as(owner, change);
      expect(refused.statusCode, change.url).toBe(403);
      expect(refused.json().code).toBe('INSTALL_ADMIN_REQUIRED');
    }
    const organization = await as(owner, { method: 'GET', url: '/console/v1/organization' });
    // A new organization's cap is the install's runner slots.
    expect(organization.json().data.concurrencyCap).toBe(3);
    const over = await as(admin, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${tenant.id}/limits`,
      payload: { concurrencyCap: 64 },
    });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({
      code: 'CONCURRENCY_CAP_OVER_SLOTS',
      message: 'concurrencyCap: must be at most 3, the runner slots of this install (RUNNER_SLOTS)',
    });
    const set = await as(admin, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${tenant.id}/limits`,
      payload: { concurrencyCap: 1 },
    });
    expect(set.statusCode).toBe(200);
    const lapsed = await as(admin, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${tenant.id}/subscription`,
      payload: { active: false },
    });
    expect(lapsed.statusCode).toBe(200);
    const after = (await as(owner, { method: 'GET', url: '/console/v1/organization' })).json().data;
    expect(after).toMatchObject({ concurrencyCap: 1, subscriptionActive: false });
    await as(admin, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${tenant.id}/subscription`,
      payload: { active: true },
    });
    const listed = (await as(admin, { method: 'GET', url: '/console/v1/install/organizations' })).json().data;
    const byName = (name: string) => listed.find((org: { name: string }) => org.name === name);
    expect(listed).toHaveLength(2);
    expect(byName('Default organization')).toMatchObject({ isInstallOrganization: true, suspendedAt: null });
    expect(byName('Tenant')).toMatchObject({
      isInstallOrganization: false,
      userCount: 1,
      subscriptionActive: true,
    });
  });

  it('grants the role to another user and never takes it from the last one', async () => {
    const granted = await as(admin, {
      method: 'POST',
      url: '/console/v1/install/admins',
      payload: { email: tenantOwner.email },
    });
    expect(granted.statusCode).toBe(200);
    expect(granted.json().data).toMatchObject({
      email: tenantOwner.email,
      grantedBy: t.bootstrap.adminEmail,
    });
    expect((await as(owner, { method: 'GET', url: '/console/v1/install/organizations' })).statusCode).toBe(
      200,
    );
    const userId = granted.json().data.userId;
    expect(
      (await as(admin, { method: 'DELETE', url: `/console/v1/install/admins/${userId}` })).statusCode,
    ).toBe(200);
    expect((await as(owner, { method: 'GET', url: '/console/v1/install/organizations' })).statusCode).toBe(
      403,
    );
    const admins = (await as(admin, { method: 'GET', url: '/console/v1/install/admins' })).json().data;
    expect(admins).toHaveLength(1);
    const last = await as(admin, { method: 'DELETE', url: `/console/v1/install/admins/${admins[0].userId}` });
    expect(last.statusCode).toBe(409);
    expect(last.json().code).toBe('LAST_INSTALL_ADMIN');
  });

  it('suspends an organization (keys, sessions and sign-in refused), deletes it after the grace period', async () => {
    const key = await as(owner, {
      method: 'POST',
      url: '/console/v1/api-keys',
      payload: { name: 'tenant ci', scopes: ['tests:read'] },
    });
    const headers = { 'x-api-key': key.json().data.key, 'x-project-id': tenant.projectId };
    expect((await t.app.inject({ method: 'GET', url: '/v1/tests', headers })).statusCode).toBe(200);

    const protectedOrg = await as(admin, {
      method: 'DELETE',
      url: `/console/v1/install/organizations/${t.bootstrap.organizationId}`,
    });
    expect(protectedOrg.statusCode).toBe(409);
    expect(protectedOrg.json().code).toBe('INSTALL_ORGANIZATION_PROTECTED');

    const suspended = await as(admin, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${tenant.id}/suspension`,
      payload: { suspended: true },
    });
    expect(suspended.json().data.suspendedAt).toBe(new Date(now).toISOString());
    expect((await t.app.inject({ method: 'GET', url: '/v1/tests', headers })).statusCode).toBe(401);
    expect((await as(owner, { method: 'GET', url: '/console/v1/session' })).statusCode).toBe(401);
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/console/v1/session',
      payload: tenantOwner,
    });
    expect(signIn.statusCode).toBe(403);
    expect(signIn.json().code).toBe('ORGANIZATION_SUSPENDED');
    await as(admin, {
      method: 'PUT',
      url: `/console/v1/install/organizations/${tenant.id}/suspension`,
      payload: { suspended: false },
    });
    expect((await t.app.inject({ method: 'GET', url: '/v1/tests', headers })).statusCode).toBe(200);

    const deleted = await as(admin, {
      method: 'DELETE',
      url: `/console/v1/install/organizations/${tenant.id}`,
    });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().data.deleteAfter).toBe(new Date(now + 30 * 86_400_000).toISOString());
    expect((await t.app.inject({ method: 'GET', url: '/v1/tests', headers })).statusCode).toBe(401);
    // Within the grace period nothing is purged; after it, the organization and its people are gone.
    const { InstallService } = await import('../../../src/modules/accounts/install-service.ts');
    const purger = new InstallService({
      db: t.ctx.db,
      clock: { now: () => new Date(now) },
      runnerSlots: 3,
      deleteGraceDays: 30,
    });
    expect(await purger.purgeDue()).toEqual([]);
    now += 31 * 86_400_000;
    expect(await purger.purgeDue()).toEqual([tenant.id]);
    admin = await login(t.app, t.bootstrap.adminEmail, t.bootstrap.adminPassword);
    const gone = await as(admin, { method: 'GET', url: `/console/v1/install/organizations/${tenant.id}` });
    expect(gone.statusCode).toBe(404);
    const user = await t.ctx.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', tenantOwner.email)
      .executeTakeFirst();
    expect(user).toBeUndefined();
  });
});
