import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';

/**
 * Sign-in throttling, driven by the requests a password-guessing client sends: a run of wrong passwords against the
 * owner's account, and the timing of unknown against known emails.
 */
describe.each(databaseKinds)('console sign-in against guessing (%s)', (database) => {
  let t: TestApp;
  let now = Date.parse('2026-03-01T10:00:00Z');
  const clock = { now: () => new Date(now) };

  const signIn = (email: string, password: string, remoteAddress = '203.0.113.7') =>
    t.app.inject({
      method: 'POST',
      url: '/console/v1/session',
      payload: { email, password },
      remoteAddress,
    });

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 429 with Retry-After after 10 failures in 15 minutes, then lets the owner in again', async () => {
    const { adminEmail, adminPassword } = t.bootstrap;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await signIn(adminEmail, `guess-${i}`)).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));

    const blocked = await signIn(adminEmail, 'guess-10');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({
      message: 'Too many failed sign-ins; try again later',
      code: 'SIGN_IN_THROTTLED',
    });
    expect(Number(blocked.headers['retry-after'])).toBe(15 * 60);
    // The right password from the guessing address is refused too: guessing has stopped.
    expect((await signIn(adminEmail, adminPassword)).statusCode).toBe(429);
    // The lock is per account and address: another account from that address (a shared proxy
    // or NAT) is answered, only a little slower.
    expect((await signIn('someone@example.com', 'x')).statusCode).toBe(401);

    // The owner's own address is not locked out by someone else's guesses.
    expect((await signIn(adminEmail, adminPassword, '198.51.100.20')).statusCode).toBe(200);

    // Nothing is permanent: once the window has passed, the guessing address may try again.
    now += 15 * 60_000 + 1_000;
    expect((await signIn(adminEmail, adminPassword)).statusCode).toBe(200);
  }, 60_000);

  it('costs the same for an unknown email as for a wrong password', async () => {
    const time = async (email: string) => {
      const started = process.hrtime.bigint();
      const response = await signIn(email, 'not-the-password', '192.0.2.99');
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ message: 'Invalid email or password', code: 'INVALID_CREDENTIALS' });
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    // Warm up (the decoy hash is computed once), then compare medians of alternating tries.
    await time('nobody@example.com');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      now += 15 * 60_000 + 1_000; // keep the throttle out of the measurement
      known.push(await time(t.bootstrap.adminEmail));
      now += 15 * 60_000 + 1_000;
      unknown.push(await time(`nobody-${i}@example.com`));
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    // Both run scrypt: the unknown email is not answered in a fraction of the known one's time.
    expect(median(unknown)).toBeGreaterThan(median(known) / 3);
  }, 60_000);
});
