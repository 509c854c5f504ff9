import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ssoStartsPerMinute } from '../../../src/modules/sso/routes.ts';
import { consoleCall, createTestApp, databaseKinds, freePort, login, type TestApp } from '../../helper.ts';
import { CookieJar, signInAtProvider, startOidcProvider, type TestOidcProvider } from './oidc-provider.ts';

const publicUrl = 'http://stepdeck.test';
const discoveryPath = '/.well-known/openid-configuration';

/** A loopback server answering every request with `answer`, or never when there is none. */
async function startServer(answer?: (response: http.ServerResponse) => void) {
  const server = http.createServer((_request, response) => answer?.(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What a provider's save checks and what sign-in keeps of it, against the real `oidc-provider`
 * on loopback: discovery must answer and name the issuer that was given; it is fetched once
 * for many sign-ins; sign-out hands the provider the session's ID token as `id_token_hint`
 * (kept sealed on the server, never in a cookie or a log line); starts are limited per address.
 */
describe.each(databaseKinds)('single sign-on provider checks on %s', (database) => {
  const lines: string[] = [];
  const responses: LightMyRequestResponse[] = [];
  let t: TestApp;
  let provider: TestOidcProvider;
  let admin: string;
  let providerUrl: string;

  const as = async (options: InjectOptions) => {
    const response = await consoleCall(t.app, admin, options);
    responses.push(response);
    return response;
  };
  const providerBody = (changes: Record<string, unknown> = {}) => ({
    issuerUrl: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    slug: 'checked',
    emailDomains: ['checked.example'],
    groupsClaim: 'groups',
    roleMappings: [{ group: 'qa', role: 'member' }],
    defaultRole: 'none',
    ssoRequired: false,
    breakGlassEmail: null,
    ...changes,
  });
  const discoveries = () => provider.requests.filter((request) => request.path === discoveryPath).length;

  async function signIn(login: string) {
    const jar = new CookieJar();
    const started = await t.app.inject({ method: 'GET', url: '/console/v1/sso/start?org=checked' });
    responses.push(started);
    expect(started.statusCode, started.body).toBe(302);
    jar.take(started.headers['set-cookie'] as string[] | string);
    const back = await signInAtProvider(String(started.headers.location), login);
    const callback = await t.app.inject({
      method: 'GET',
      url: back.pathname + back.search,
      headers: { cookie: jar.header() },
    });
    responses.push(callback);
    expect(callback.statusCode, callback.body).toBe(302);
    const session = [callback.headers['set-cookie']]
      .flat()
      .find((line) => line?.startsWith('stepdeck_session=') && !line.startsWith('stepdeck_session=;'));
    return String(session).split(';')[0] as string;
  }

  beforeAll(async () => {
    provider = await startOidcProvider({
      redirectUri: `${publicUrl}/console/v1/sso/callback`,
      postLogoutRedirectUri: `${publicUrl}/console/sign-in`,
    });
    t = await createTestApp({
      database,
      env: { PUBLIC_URL: publicUrl, LOG_LEVEL: 'trace' },
      logStream: { write: (line: string) => void lines.push(line) },
    });
    admin = await t.consoleCookie();
    const tenant = await as({
      method: 'POST',
      url: '/console/v1/install/organizations',
      payload: {
        name: 'Checked',
        ownerEmail: 'owner@checked.example',
        ownerPassword: 'checked-owner-password',
      },
    });
    expect(tenant.statusCode, tenant.body).toBe(201);
    providerUrl = `/console/v1/install/organizations/${tenant.json().data.id}/sso`;
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  it('refuses to save an issuer that does not answer discovery, quickly, naming it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await as({
      method: 'PUT',
      url: providerUrl,
      payload: providerBody({ issuerUrl: closed }),
    });
    expect([refused.statusCode, refused.json().code]).toEqual([400, 'SSO_ISSUER_DISCOVERY_FAILED']);
    expect(refused.json().message).toMatch(
      new RegExp(`^issuerUrl: issuer ${closed.replaceAll('.', '\\.')} did not answer discovery: .+`),
    );

    const hanging = await startServer();
    try {
      const startedAt = Date.now();
      const slow = await as({
        method: 'PUT',
        url: providerUrl,
        payload: providerBody({ issuerUrl: hanging.origin }),
      });
      expect([slow.statusCode, slow.json().code]).toEqual([400, 'SSO_ISSUER_DISCOVERY_FAILED']);
      expect(slow.json().message).toContain(`issuer ${hanging.origin} did not answer discovery`);
      // The save's own short timeout (5 s), not the sign-in's 10 s.
      expect(Date.now() - startedAt).toBeLessThan(9_000);
    } finally {
      await hanging.close();
    }
    expect((await as({ method: 'GET', url: providerUrl })).json()).toEqual({ data: null });
  });

  it('refuses to save an issuer whose discovery document names another issuer', async () => {
    const impostor = await startServer((response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          issuer: 'https://idp.elsewhere.example',
          authorization_endpoint: 'https://idp.elsewhere.example/auth',
          token_endpoint: 'https://idp.elsewhere.example/token',
          jwks_uri: 'https://idp.elsewhere.example/jwks',
        }),
      );
    });
    try {
      const refused = await as({
        method: 'PUT',
        url: providerUrl,
        payload: providerBody({ issuerUrl: impostor.origin }),
      });
      expect([refused.statusCode, refused.json().code]).toEqual([400, 'SSO_ISSUER_MISMATCH']);
      expect(refused.json().message).toBe(
        `issuerUrl: the issuer in the discovery document is https://idp.elsewhere.example, not ${impostor.origin}`,
      );
    } finally {
      await impostor.close();
    }
    expect((await as({ method: 'GET', url: providerUrl })).json()).toEqual({ data: null });
  });

  it('saves a provider that answers; sign-ins fetch its discovery once, a new save fetches it again', async () => {
    const saved = await as({ method: 'PUT', url: providerUrl, payload: providerBody() });
    expect(saved.statusCode, saved.body).toBe(200);
    provider.accounts.set('alice', { email: 'alice@checked.example', groups: ['qa'] });
    const before = discoveries();
    const first = await signIn('alice');
    const second = await signIn('alice');
    expect(discoveries() - before).toBe(1);
    for (const cookie of [first, second]) {
      const session = await consoleCall(t.app, cookie, { method: 'GET', url: '/console/v1/session' });
      expect(session.json().data).toMatchObject({ email: 'alice@checked.example', role: 'member' });
    }

    // Saved again (unchanged, the secret kept): the next sign-in discovers afresh.
    const again = await as({
      method: 'PUT',
      url: providerUrl,
      payload: providerBody({ clientSecret: undefined }),
    });
    expect(again.statusCode, again.body).toBe(200);
    const afterSave = discoveries();
    await signIn('alice');
    expect(discoveries() - afterSave).toBe(1);
  });

  it("signs out with the session's ID token as id_token_hint, kept sealed on the server only", async () => {
    provider.accounts.set('alice', { email: 'alice@checked.example', groups: ['qa'] });
    const cookie = await signIn('alice');
    const stored = await t.ctx.db.selectFrom('ssoSessions').select('idTokenSealed').execute();
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) expect(row.idTokenSealed.startsWith('sdbox:v1:')).toBe(true);

    const signedOut = await consoleCall(t.app, cookie, { method: 'POST', url: '/console/v1/sso/sign-out' });
    expect(signedOut.statusCode, signedOut.body).toBe(200);
    const endSession = new URL(signedOut.json().data.endSessionUrl);
    const idToken = endSession.searchParams.get('id_token_hint');
    expect(idToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(String(idToken).split('.')[1] as string, 'base64url').toString());
    expect(claims).toMatchObject({ iss: provider.issuer, aud: provider.clientId, sub: 'alice' });

    // At the provider: it received the hint and accepted it (an unknown or forged one is a 400).
    const atProvider = await fetch(endSession, { redirect: 'manual' });
    expect(atProvider.status).toBe(200);
    const request = provider.requests.findLast((entry) => entry.path === '/session/end');
    expect(request?.query.get('id_token_hint')).toBe(idToken);
    expect(request?.query.get('post_logout_redirect_uri')).toBe(`${publicUrl}/console/sign-in`);
    const forged = new URL(endSession);
    forged.searchParams.set('id_token_hint', `${idToken}x`);
    expect((await fetch(forged, { redirect: 'manual' })).status).toBe(400);

    // Sent once: the row went with the session.
    expect((await consoleCall(t.app, cookie, { method: 'GET', url: '/console/v1/session' })).statusCode).toBe(
      401,
    );
    const left = await t.ctx.db.selectFrom('ssoSessions').select('idTokenSealed').execute();
    expect(left.length).toBe(stored.length - 1);
    // Never in a cookie or a log line.
    const cookies = responses.flatMap((response) => [response.headers['set-cookie']].flat()).join('\n');
    expect(cookies).not.toContain(String(idToken));
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.join('\n')).not.toContain(String(idToken));
  });

  it(`limits sign-in starts to ${ssoStartsPerMinute} a minute per client address`, async () => {
    const start = (remoteAddress: string) =>
      t.app.inject({ method: 'GET', url: '/console/v1/sso/start?org=nobody.example', remoteAddress });
    for (let index = 0; index < ssoStartsPerMinute; index++)
      expect((await start('192.0.2.7')).statusCode).toBe(404);
    const limited = await start('192.0.2.7');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected, nor is the rest of the console.
    expect((await start('192.0.2.8')).statusCode).toBe(404);
    expect((await login(t.app, 'owner@checked.example', 'checked-owner-password')).length).toBeGreaterThan(0);
  });
});
