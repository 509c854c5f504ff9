import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInMaxFailures } from '../../../src/modules/accounts/sign-in-throttle.ts';
import { consoleCall, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';

/** `PUT /console/v1/session/password`: a signed-in user changes their own password. */
describe.each(databaseKinds)('changing your own password on %s', (database) => {
  let t: TestApp;
  const email = `member-${database}@example.com`;
  const oneTime = 'handed-over-0ne-time';
  const chosen = 'Ch0sen by the member!';

  beforeAll(async () => {
    t = await createTestApp({ database });
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email, password: oneTime, role: 'member' },
    });
    expect(created.statusCode).toBe(201);
  });
  afterAll(async () => t?.close());

  const change = (cookie: string, payload: Record<string, unknown>) =>
    consoleCall(t.app, cookie, { method: 'PUT', url: '/console/v1/session/password', payload });
  const session = (cookie: string) =>
    consoleCall(t.app, cookie, { method: 'GET', url: '/console/v1/session' });

  it('refuses a wrong current password, a short or unchanged new one, with a message naming the field', async () => {
    const cookie = await login(t.app, email, oneTime);
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { currentPassword: 'not it at all', newPassword: chosen },
        'currentPassword: the current password is wrong',
      ],
      [
        { currentPassword: oneTime, newPassword: 'short' },
        'body.newPassword: newPassword must be at least 8 characters',
      ],
      [
        { currentPassword: oneTime, newPassword: oneTime },
        'newPassword: must differ from the current password',
      ],
      [{ newPassword: chosen }, 'body.currentPassword: currentPassword is required'],
    ];
    for (const [payload, message] of cases) {
      const response = await change(cookie, payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message, code: expect.stringMatching(/^[A-Z_]+$/) });
    }
    // Nothing changed: the one-time password still signs in.
    await login(t.app, email, oneTime);
  });

  it('changes it: this session stays, every other ends, only the new password signs in', async () => {
    const here = await login(t.app, email, oneTime);
    const elsewhere = await login(t.app, email, oneTime);
    const response = await change(here, { currentPassword: oneTime, newPassword: chosen });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: null });

    expect((await session(here)).statusCode).toBe(200);
    expect((await session(elsewhere)).statusCode).toBe(401);
    await expect(login(t.app, email, oneTime)).rejects.toThrow(/401/);
    expect((await session(await login(t.app, email, chosen))).json().data.email).toBe(email);
  });

  it('needs a session and the console CSRF header; neither password reaches the audit log', async () => {
    const anonymous = await t.app.inject({
      method: 'PUT',
      url: '/console/v1/session/password',
      payload: { currentPassword: chosen, newPassword: 'another one entirely' },
    });
    expect(anonymous.statusCode).toBe(401);
    const cookie = await login(t.app, email, chosen);
    const noCsrf = await t.app.inject({
      method: 'PUT',
      url: '/console/v1/session/password',
      headers: { cookie },
      payload: { currentPassword: chosen, newPassword: 'another one entirely' },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect((await session(await login(t.app, email, chosen))).statusCode).toBe(200);

    const audit = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: '/console/v1/audit-log?limit=100',
    });
    expect(audit.statusCode).toBe(200);
    const changes = audit
      .json()
      .data.filter((entry: { action: string }) => entry.action.includes('/console/v1/session/password'));
    expect(changes.length).toBeGreaterThan(0);
    for (const secret of [oneTime, chosen]) expect(audit.body).not.toContain(secret);
  });

  it('counts wrong current passwords like failed sign-ins: 429 with Retry-After', async () => {
    const cookie = await login(t.app, email, chosen);
    let last = await change(cookie, { currentPassword: 'guess 0', newPassword: 'whatever it is' });
    for (let attempt = 1; attempt <= signInMaxFailures && last.statusCode === 400; attempt += 1)
      last = await change(cookie, { currentPassword: `guess ${attempt}`, newPassword: 'whatever it is' });
    expect(last.statusCode).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right password waits now: guessing gains nothing.
    expect(
      (await change(cookie, { currentPassword: chosen, newPassword: 'whatever it is' })).statusCode,
    ).toBe(429);
  }, 60_000);
});
