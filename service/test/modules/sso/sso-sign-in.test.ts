import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/adapters/db/index.ts';
import { type BuiltApp, buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { SecretBox } from '../../../src/secret-box.ts';
import { consoleCall, createPostgresDatabase, databaseKinds, login } from '../../helper.ts';
import { CookieJar, signInAtProvider, startOidcProvider, type TestOidcProvider } from './oidc-provider.ts';

const publicUrl = 'http://stepdeck.test';
const owner = { email: 'owner@tenant.example', password: 'tenant-owner-password' };
const member = { email: 'pat@tenant.example', password: 'tenant-member-password' };

/**
 * Single sign-on against a real OpenID provider on loopback: the app at its most verbose log
 * level with the lines captured, every response kept, so the client secret can be looked for
 * in all of them at the end.
 */
describe.each(databaseKinds)('single sign-on on %s', (database) => {
  const lines: string[] = [];
  const responses: LightMyRequestResponse[] = [];
  let built: BuiltApp;
  let provider: TestOidcProvider;
  let cleanup: Array<() => Promise<void> | void> = [];
  let admin: string;
  let tenantId: string;

  const inject = async (options: InjectOptions) => {
    const response = await built.app.inject(options);
    responses.push(response);
    return response;
  };
  const as = async (cookie: string, options: InjectOptions) => {
    const response = await consoleCall(built.app, cookie, options);
    responses.push(response);
    return response;
  };
  const providerBody = (changes: Record<string, unknown> = {}) => ({
    issuerUrl: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    slug: 'tenant',
    emailDomains: ['tenant.example'],
    groupsClaim: 'groups',
    roleMappings: [
      { group: 'qa-leads', role: 'admin' },
      { group: 'qa', role: 'member' },
    ],
    defaultRole: 'none',
    ssoRequired: false,
    breakGlassEmail: null,
    ...changes,
  });

  /** Start → the provider's login form as `login` → the callback; the callback's response. */
  async function signInWithSso(login: string, org = 'someone@tenant.example', next = '/dashboard') {
    const jar = new CookieJar();
    const started = await inject({
      method: 'GET',
      url: `/console/v1/sso/start?org=${encodeURIComponent(org)}&next=${encodeURIComponent(next)}`,
    });
    expect(started.statusCode, started.body).toBe(302);
    jar.take(started.headers['set-cookie'] as string[] | string);
    const back = await signInAtProvider(String(started.headers.location), login);
    expect(back.href.startsWith(`${publicUrl}/console/v1/sso/callback?`)).toBe(true);
    const callback = await inject({
      method: 'GET',
      url: back.pathname + back.search,
      headers: { cookie: jar.header() },
    });
    return { callback, started, back, jar };
  }

  const sessionCookieOf = (response: LightMyRequestResponse) => {
    const cookies = [response.headers['set-cookie']].flat().filter(Boolean) as string[];
    const session = cookies.find(
      (line) => line.startsWith('stepdeck_session=') && !line.startsWith('stepdeck_session=;'),
    );
    return session?.split(';')[0];
  };

  const auditEntries = async () =>
    (
      await as(admin, {
        method: 'GET',
        url: `/console/v1/install/audit-log?organizationId=${tenantId}&limit=100`,
      })
    ).json().data as Array<{
      action: string;
      status: number;
      detail: string | null;
      actor: { label: string };
    }>;

  beforeAll(async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-sso-'));
    cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    let databaseUrl: string | undefined;
    if (database === 'postgres') {
      const created = await createPostgresDatabase();
      databaseUrl = created.url;
      cleanup.push(created.drop);
    }
    provider = await startOidcProvider({
      redirectUri: `${publicUrl}/console/v1/sso/callback`,
      postLogoutRedirectUri: `${publicUrl}/console/sign-in`,
    });
    cleanup.push(() => provider.close());
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      PUBLIC_URL: publicUrl,
      // The most verbose level: if the client secret were ever logged, it would be here.
      LOG_LEVEL: 'trace',
      ADMIN_PASSWORD: 'admin-password',
      SMTP_PORT: '0',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    const opened = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    built = await buildApp({
      config,
      database: opened,
      background: false,
      logStream: { write: (line: string) => void lines.push(line) },
    });
    await built.app.ready();
    cleanup = [async () => built.app.close(), () => opened.close(), ...cleanup];
    admin = await login(built.app, 'admin@localhost', 'admin-password');
    const tenant = await as(admin, {
      method: 'POST',
      url: '/console/v1/install/organizations',
      payload: { name: 'Tenant', ownerEmail: owner.email, ownerPassword: owner.password },
    });
    expect(tenant.statusCode).toBe(201);
    tenantId = tenant.json().data.id;
    const ownerCookie = await login(built.app, owner.email, owner.password);
    expect(
      (
        await as(ownerCookie, {
          method: 'POST',
          url: '/console/v1/users',
          payload: { ...member, role: 'member' },
        })
      ).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    for (const step of cleanup) await step();
  });

  it('keeps the provider to install admins, checks what it is given and never returns the secret', async () => {
    const url = `/console/v1/install/organizations/${tenantId}/sso`;
    const ownerCookie = await login(built.app, owner.email, owner.password);
    expect((await as(ownerCookie, { method: 'PUT', url, payload: providerBody() })).json().code).toBe(
      'INSTALL_ADMIN_REQUIRED',
    );
    expect((await as(admin, { method: 'GET', url })).json()).toEqual({ data: null });

    const noSecret = await as(admin, {
      method: 'PUT',
      url,
      payload: providerBody({ clientSecret: undefined }),
    });
    expect([noSecret.statusCode, noSecret.json().code]).toEqual([400, 'SSO_CLIENT_SECRET_REQUIRED']);
    const insecure = await as(admin, {
      method: 'PUT',
      url,
      payload: providerBody({ issuerUrl: 'http://idp.example.com' }),
    });
    expect([insecure.statusCode, insecure.json().code]).toEqual([400, 'SSO_ISSUER_INSECURE']);
    const noBreakGlass = await as(admin, {
      method: 'PUT',
      url,
      payload: providerBody({ ssoRequired: true }),
    });
    expect([noBreakGlass.statusCode, noBreakGlass.json().code]).toEqual([400, 'SSO_BREAK_GLASS_REQUIRED']);
    const notOwner = await as(admin, {
      method: 'PUT',
      url,
      payload: providerBody({ breakGlassEmail: member.email }),
    });
    expect([notOwner.statusCode, notOwner.json().message]).toEqual([
      400,
      `breakGlassEmail: ${member.email} is not an owner of this organization`,
    ]);
    const badRole = await as(admin, {
      method: 'PUT',
      url,
      payload: providerBody({ roleMappings: [{ group: 'x', role: 'viewer' }] }),
    });
    expect(badRole.statusCode).toBe(400);
    expect(badRole.json().message).toMatch(/role must be owner, admin or member/);

    const saved = await as(admin, { method: 'PUT', url, payload: providerBody() });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toMatchObject({
      issuerUrl: provider.issuer,
      clientSecretSet: true,
      slug: 'tenant',
      redirectUri: `${publicUrl}/console/v1/sso/callback`,
    });
    expect(saved.json().data).not.toHaveProperty('clientSecret');
    // Saved again without the secret: the stored one stays.
    expect(
      (await as(admin, { method: 'PUT', url, payload: providerBody({ clientSecret: undefined }) }))
        .statusCode,
    ).toBe(200);
    const read = await as(ownerCookie, { method: 'GET', url: '/console/v1/sso/provider' });
    expect(read.json().data.emailDomains).toEqual(['tenant.example']);
    const memberCookie = await login(built.app, member.email, member.password);
    expect((await as(memberCookie, { method: 'GET', url: '/console/v1/sso/provider' })).statusCode).toBe(403);
    // Stored sealed, not in clear.
    const row = await built.ctx.db.selectFrom('ssoProviders').selectAll().executeTakeFirstOrThrow();
    expect(row.clientSecretSealed).not.toContain(provider.clientSecret);
    expect((await SecretBox.open(built.ctx.db)).open(row.clientSecretSealed)).toBe(provider.clientSecret);
  });

  it('creates the account on first sign-in with the role its groups map to, and opens a session', async () => {
    provider.accounts.set('alice', { email: 'Alice@Tenant.example', groups: ['qa-leads', 'qa'] });
    const { callback } = await signInWithSso('alice');
    expect(callback.statusCode, callback.body).toBe(302);
    expect(callback.headers.location).toBe('/console/dashboard');
    const cookie = sessionCookieOf(callback);
    expect(cookie).toBeDefined();
    const session = await as(cookie as string, { method: 'GET', url: '/console/v1/session' });
    expect(session.json().data).toMatchObject({
      email: 'alice@tenant.example',
      role: 'admin',
      organizationId: tenantId,
    });
    const entry = (await auditEntries()).find(
      (e) => e.action === 'GET /console/v1/sso/callback' && e.actor.label === 'alice@tenant.example',
    );
    expect(entry).toMatchObject({
      status: 302,
      detail: 'Signed in with single sign-on: account created as admin',
    });
  });

  it("follows the groups on every sign-in: the role changes, the session is the new role's", async () => {
    provider.accounts.set('alice', { email: 'alice@tenant.example', groups: ['qa'] });
    const { callback } = await signInWithSso('alice', 'tenant');
    expect(callback.statusCode, callback.body).toBe(302);
    const session = await as(sessionCookieOf(callback) as string, {
      method: 'GET',
      url: '/console/v1/session',
    });
    expect(session.json().data.role).toBe('member');
    expect((await auditEntries()).map((e) => e.detail)).toContain(
      'Signed in with single sign-on: role admin → member',
    );
  });

  it('refuses a person none of whose groups is mapped (default: no access), with a page naming why', async () => {
    provider.accounts.set('bob', { email: 'bob@tenant.example', groups: ['sales'] });
    const { callback } = await signInWithSso('bob');
    expect(callback.statusCode).toBe(403);
    expect(callback.headers['content-type']).toMatch(/text\/html/);
    expect(callback.body).toContain(
      'None of your groups (claim &quot;groups&quot;) gives access to this organization',
    );
    expect(sessionCookieOf(callback)).toBeUndefined();
    const entry = (await auditEntries()).find((e) => e.actor.label === 'bob@tenant.example');
    expect(entry).toMatchObject({ action: 'GET /console/v1/sso/callback', status: 403 });
    expect(entry?.detail).toMatch(/^SSO_NO_MAPPED_GROUP: /);
    const users = await as(admin, { method: 'GET', url: `/console/v1/install/organizations/${tenantId}` });
    expect(users.json().data.userCount).toBe(3); // owner, member, alice: no account for bob
  });

  it('refuses a callback whose state or nonce is not this browser’s, or that has no attempt at all', async () => {
    provider.accounts.set('carol', { email: 'carol@tenant.example', groups: ['qa'] });
    // State: the provider's answer to one attempt, brought back with another attempt's cookie.
    const first = await inject({ method: 'GET', url: '/console/v1/sso/start?org=tenant' });
    const second = await inject({ method: 'GET', url: '/console/v1/sso/start?org=tenant' });
    const answer = await signInAtProvider(String(first.headers.location), 'carol');
    const otherJar = new CookieJar();
    otherJar.take(second.headers['set-cookie'] as string);
    const mismatch = await inject({
      method: 'GET',
      url: answer.pathname + answer.search,
      headers: { cookie: otherJar.header() },
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('SSO_STATE_MISMATCH');
    const tampered = new URL(answer);
    tampered.searchParams.set('state', 'forged-state');
    const firstJar = new CookieJar();
    firstJar.take(first.headers['set-cookie'] as string);
    const forged = await inject({
      method: 'GET',
      url: tampered.pathname + tampered.search,
      headers: { cookie: firstJar.header() },
    });
    expect(forged.body).toContain('SSO_STATE_MISMATCH');

    // Nonce: the same attempt with its nonce changed (resealed with the install's key).
    const third = await inject({ method: 'GET', url: '/console/v1/sso/start?org=tenant' });
    const thirdJar = new CookieJar();
    thirdJar.take(third.headers['set-cookie'] as string);
    const box = await SecretBox.open(built.ctx.db);
    const flow = JSON.parse(box.open(decodeURIComponent(thirdJar.get('stepdeck_sso') as string)));
    const resealed = box.seal(JSON.stringify({ ...flow, nonce: 'another-nonce' }));
    const nonceAnswer = await signInAtProvider(String(third.headers.location), 'carol');
    const badNonce = await inject({
      method: 'GET',
      url: nonceAnswer.pathname + nonceAnswer.search,
      headers: { cookie: `stepdeck_sso=${encodeURIComponent(resealed)}` },
    });
    expect(badNonce.statusCode).toBe(400);
    expect(badNonce.body).toContain('SSO_ANSWER_INVALID');
    expect(badNonce.body).toMatch(/nonce/);

    // No attempt in this browser, or a cookie that is not the install's.
    const none = await inject({ method: 'GET', url: answer.pathname + answer.search });
    expect([none.statusCode, none.body.includes('SSO_SIGN_IN_EXPIRED')]).toEqual([400, true]);
    const garbage = await inject({
      method: 'GET',
      url: answer.pathname + answer.search,
      headers: { cookie: 'stepdeck_sso=v1:AAAA:BBBB:CCCC' },
    });
    expect(garbage.body).toContain('SSO_SIGN_IN_EXPIRED');
    for (const response of [mismatch, forged, badNonce, none])
      expect(sessionCookieOf(response)).toBeUndefined();
    const codes = (await auditEntries()).map((e) => e.detail?.split(':')[0]);
    expect(codes).toEqual(expect.arrayContaining(['SSO_STATE_MISMATCH', 'SSO_ANSWER_INVALID']));
  });

  it('names an unknown organization and a provider that is down, audited', async () => {
    const unknown = await inject({
      method: 'GET',
      url: '/console/v1/sso/start?org=nobody@elsewhere.example',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain(
      'No organization signs in with single sign-on as &quot;nobody@elsewhere.example&quot;',
    );
    const installLog = (
      await as(admin, { method: 'GET', url: '/console/v1/install/audit-log?limit=100' })
    ).json().data as Array<{ actor: { label: string }; detail: string | null }>;
    expect(installLog.find((e) => e.actor.label === 'nobody@elsewhere.example')?.detail).toMatch(
      /^SSO_ORGANIZATION_UNKNOWN/,
    );

    const other = await as(admin, {
      method: 'POST',
      url: '/console/v1/install/organizations',
      payload: { name: 'Down', ownerEmail: 'owner@down.example', ownerPassword: 'down-owner-password' },
    });
    const downUrl = `/console/v1/install/organizations/${other.json().data.id}/sso`;
    // Saved while its provider answered (a save checks discovery), which then went down.
    const later = await startOidcProvider({
      redirectUri: `${publicUrl}/console/v1/sso/callback`,
      postLogoutRedirectUri: `${publicUrl}/console/sign-in`,
    });
    const saved = await as(admin, {
      method: 'PUT',
      url: downUrl,
      payload: providerBody({
        issuerUrl: later.issuer,
        clientId: later.clientId,
        clientSecret: later.clientSecret,
        slug: 'down',
        emailDomains: ['down.example'],
      }),
    });
    expect(saved.statusCode, saved.body).toBe(200);
    await later.close();
    const taken = await as(admin, {
      method: 'PUT',
      url: downUrl,
      payload: providerBody({ slug: 'tenant', emailDomains: [] }),
    });
    expect([taken.statusCode, taken.json().code]).toEqual([409, 'SSO_SLUG_TAKEN']);
    const down = await inject({ method: 'GET', url: '/console/v1/sso/start?org=down' });
    expect(down.statusCode).toBe(502);
    expect(down.body).toContain(`The identity provider ${later.issuer} could not be reached`);
  });

  it("refuses a member's password when SSO is required, but not the break-glass owner's", async () => {
    const url = `/console/v1/install/organizations/${tenantId}/sso`;
    const saved = await as(admin, {
      method: 'PUT',
      url,
      payload: providerBody({ clientSecret: undefined, ssoRequired: true, breakGlassEmail: owner.email }),
    });
    expect(saved.json().data).toMatchObject({ ssoRequired: true, breakGlassEmail: owner.email });
    const refused = await inject({ method: 'POST', url: '/console/v1/session', payload: member });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'SSO_REQUIRED' });
    expect(refused.json().message).toMatch(/single sign-on/);
    // A wrong password is still just a wrong password: the refusal tells a guesser nothing.
    const wrong = await inject({
      method: 'POST',
      url: '/console/v1/session',
      payload: { ...member, password: 'wrong-password' },
    });
    expect(wrong.json().code).toBe('INVALID_CREDENTIALS');
    expect((await inject({ method: 'POST', url: '/console/v1/session', payload: owner })).statusCode).toBe(
      200,
    );
    const entry = (await auditEntries()).find(
      (e) => e.actor.label === member.email && e.action === 'POST /console/v1/session' && e.status === 403,
    );
    expect(entry).toMatchObject({
      status: 403,
      detail: 'Password refused: the organization requires single sign-on',
    });
    // The same person still signs in through the provider.
    provider.accounts.set('pat', { email: member.email, groups: ['qa'] });
    const { callback } = await signInWithSso('pat');
    expect(callback.statusCode, callback.body).toBe(302);
  });

  it("signs out: the session ends and the provider's end-session URL is given", async () => {
    provider.accounts.set('alice', { email: 'alice@tenant.example', groups: ['qa'] });
    const { callback } = await signInWithSso('alice');
    const cookie = sessionCookieOf(callback) as string;
    const signedOut = await as(cookie, { method: 'POST', url: '/console/v1/sso/sign-out' });
    expect(signedOut.statusCode).toBe(200);
    const endSession = new URL(signedOut.json().data.endSessionUrl);
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${publicUrl}/console/sign-in`);
    expect((await as(cookie, { method: 'GET', url: '/console/v1/session' })).statusCode).toBe(401);
  });

  it('never shows the client secret in a response, a log line or the audit log', async () => {
    const exported = await as(admin, { method: 'GET', url: '/console/v1/install/audit-log?limit=100' });
    const everything = [
      ...responses.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`),
      exported.body,
      ...lines,
    ].join('\n');
    expect(lines.length).toBeGreaterThan(50);
    expect(everything).toContain('SSO_');
    expect(everything).not.toContain(provider.clientSecret);
  });
});
