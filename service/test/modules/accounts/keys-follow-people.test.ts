import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, login, type TestApp } from '../../helper.ts';

/** The audit log's newest entries for an action. */
async function entriesOf(t: TestApp, cookie: string, action: string) {
  const response = await consoleCall(t.app, cookie, {
    method: 'GET',
    url: `/console/v1/install/audit-log?action=${encodeURIComponent(action)}`,
  });
  expect(response.statusCode).toBe(200);
  return response.json().data as Array<{
    actor: { label: string };
    status: number;
    ip: string;
    detail?: string | null;
    organizationId: string;
  }>;
}

describe('keys follow people, and the audit log sees refusals', () => {
  let t: TestApp;
  let owner: string;

  beforeAll(async () => {
    t = await createTestApp({
      env: { TRUSTED_PROXIES: '10.0.0.1', WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' },
    });
    owner = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  async function adminWithKey(email: string) {
    await consoleCall(t.app, owner, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email, password: 'password-123', role: 'admin' },
    });
    const cookie = await login(t.app, email, 'password-123');
    const key = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/api-keys',
      payload: { name: `${email} ci`, scopes: ['tests:read'] },
    });
    const users = (await consoleCall(t.app, owner, { method: 'GET', url: '/console/v1/users' })).json().data;
    const id = users.find((user: { email: string }) => user.email === email).id as string;
    return { id, key: key.json().data.key as string, keyId: key.json().data.id as string };
  }
  const works = async (key: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/v1/tests',
        headers: { 'x-api-key': key, 'x-project-id': t.bootstrap.projectId },
      })
    ).statusCode;

  it("lists who created each key, and revokes a removed admin's keys with an audit entry", async () => {
    const leaving = await adminWithKey('leaving@example.com');
    const keys = (await consoleCall(t.app, owner, { method: 'GET', url: '/console/v1/api-keys' })).json()
      .data;
    expect(keys.find((key: { id: string }) => key.id === leaving.keyId).createdBy).toEqual({
      userId: leaving.id,
      email: 'leaving@example.com',
    });
    expect(keys.find((key: { name: string }) => key.name === 'bootstrap').createdBy).toBeNull();
    expect(await works(leaving.key)).toBe(200);
    const removed = await consoleCall(t.app, owner, {
      method: 'DELETE',
      url: `/console/v1/users/${leaving.id}`,
    });
    expect(removed.statusCode).toBe(200);
    expect(await works(leaving.key)).toBe(401);
    const after = (await consoleCall(t.app, owner, { method: 'GET', url: '/console/v1/api-keys' })).json()
      .data;
    // The creator is still named once they are gone.
    expect(after.find((key: { id: string }) => key.id === leaving.keyId)).toMatchObject({
      revoked: true,
      createdBy: { email: 'leaving@example.com' },
    });
    const [entry] = await entriesOf(t, owner, 'DELETE /console/v1/users/:id');
    expect(entry).toMatchObject({ status: 200, detail: 'API keys revoked: 1' });
  });

  it('keeps the keys when asked (revokeKeys=false), and says so in the audit entry', async () => {
    const staying = await adminWithKey('keys-stay@example.com');
    const removed = await consoleCall(t.app, owner, {
      method: 'DELETE',
      url: `/console/v1/users/${staying.id}?revokeKeys=false`,
    });
    expect(removed.statusCode).toBe(200);
    expect(await works(staying.key)).toBe(200);
    const [entry] = await entriesOf(t, owner, 'DELETE /console/v1/users/:id');
    expect(entry?.detail).toBe('API keys kept (revokeKeys: false): 1');
  });

  it("revokes a demoted admin's keys by default", async () => {
    const demoted = await adminWithKey('demoted@example.com');
    const changed = await consoleCall(t.app, owner, {
      method: 'PUT',
      url: `/console/v1/users/${demoted.id}`,
      payload: { role: 'member' },
    });
    expect(changed.statusCode).toBe(200);
    expect(await works(demoted.key)).toBe(401);
    const [entry] = await entriesOf(t, owner, 'PUT /console/v1/users/:id');
    expect(entry?.detail).toBe('API keys revoked: 1');
  });

  it('audits a request refused for its missing CSRF header, with its actor', async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: '/console/v1/tags',
      headers: { cookie: owner },
      payload: { name: 'cross-site' },
    });
    expect(refused.statusCode).toBe(403);
    const [entry] = await entriesOf(t, owner, 'POST /console/v1/tags');
    expect(entry).toMatchObject({ status: 403, actor: { label: t.bootstrap.adminEmail } });
  });

  it('audits failed sign-ins under the account tried, never the password, with the client address behind a trusted proxy', async () => {
    const password = 'wrong-password-XYZ';
    const viaProxy = await t.app.inject({
      method: 'POST',
      url: '/console/v1/session',
      remoteAddress: '10.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.7' },
      payload: { email: t.bootstrap.adminEmail, password },
    });
    expect(viaProxy.statusCode).toBe(401);
    // Anyone else's X-Forwarded-For is ignored: the socket's address is the client's.
    const forged = await t.app.inject({
      method: 'POST',
      url: '/console/v1/session',
      remoteAddress: '192.0.2.5',
      headers: { 'x-forwarded-for': '203.0.113.8' },
      payload: { email: 'nobody@example.com', password },
    });
    expect(forged.statusCode).toBe(401);
    const entries = await entriesOf(t, owner, 'POST /console/v1/session');
    expect(entries.slice(0, 2)).toMatchObject([
      { status: 401, ip: '192.0.2.5', actor: { label: 'nobody@example.com' } },
      { status: 401, ip: '203.0.113.7', actor: { label: t.bootstrap.adminEmail } },
    ]);
    expect(JSON.stringify(entries)).not.toContain(password);
    // A successful sign-in is not an audit entry.
    await login(t.app, t.bootstrap.adminEmail, t.bootstrap.adminPassword);
    expect(await entriesOf(t, owner, 'POST /console/v1/session')).toHaveLength(2);
  });

  it("answers adding another organization's person like any add, creating nobody", async () => {
    const other = await consoleCall(t.app, owner, {
      method: 'POST',
      url: '/console/v1/install/organizations',
      payload: { name: 'Elsewhere', ownerEmail: 'taken@elsewhere.example', ownerPassword: 'password-123' },
    });
    const otherOwner = await login(t.app, 'taken@elsewhere.example', 'password-123');
    expect(other.statusCode).toBe(201);
    const add = await consoleCall(t.app, owner, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'taken@elsewhere.example', password: 'password-123', role: 'member' },
    });
    expect(add.statusCode).toBe(201);
    expect(add.json().data).toMatchObject({ email: 'taken@elsewhere.example', role: 'member' });
    const users = (await consoleCall(t.app, owner, { method: 'GET', url: '/console/v1/users' })).json().data;
    expect(users.map((user: { email: string }) => user.email)).not.toContain('taken@elsewhere.example');
    expect(
      (await consoleCall(t.app, otherOwner, { method: 'GET', url: '/console/v1/session' })).json().data
        .organizationId,
    ).toBe(other.json().data.id);
  });

  it('masks webhook URLs for members: scheme, host and the first path segment', async () => {
    const created = await consoleCall(t.app, owner, {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload: { url: 'https://127.0.0.1:9/services/T000/B000/secret-token?key=abc', events: ['run.failed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    await consoleCall(t.app, owner, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'viewer@example.com', password: 'password-123', role: 'member' },
    });
    const member = await login(t.app, 'viewer@example.com', 'password-123');
    const seen = (await consoleCall(t.app, member, { method: 'GET', url: '/console/v1/webhooks' })).json()
      .data;
    expect(seen[0].url).toBe('https://127.0.0.1:9/services/…');
    const one = await consoleCall(t.app, member, {
      method: 'GET',
      url: `/console/v1/webhooks/${seen[0].id}`,
    });
    expect(one.json().data.url).toBe('https://127.0.0.1:9/services/…');
    expect(JSON.stringify(seen)).not.toContain('secret-token');
    const full = (await consoleCall(t.app, owner, { method: 'GET', url: '/console/v1/webhooks' })).json()
      .data;
    expect(full[0].url).toBe('https://127.0.0.1:9/services/T000/B000/secret-token?key=abc');
  });
});
