import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyUsage } from '../../../src/modules/accounts/public.ts';
import { consoleCall, createApiKey, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { manualClock } from '../schedules/fixtures.ts';

interface ListedKey {
  id: string;
  name: string;
  lastUsedAt: string | null;
}

describe.each(databaseKinds)('API key "last used" on %s', (database) => {
  let t: TestApp;
  const clock = manualClock('2026-11-24T05:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
  });
  afterAll(async () => t?.close());

  const listed = async (name: string): Promise<ListedKey> => {
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: '/console/v1/api-keys',
    });
    expect(response.statusCode, response.body).toBe(200);
    const key = (response.json().data as ListedKey[]).find((item) => item.name === name);
    if (!key) throw new Error(`key ${name} not listed`);
    return key;
  };
  const useKey = async (key: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/v1/email-inboxes/limits',
      headers: { 'x-api-key': key },
    });
    expect(response.statusCode, response.body).toBe(200);
    await t.app.apiKeyUsage.settled();
  };

  it('shows null for a key never used, then when it was used, written at most once a minute', async () => {
    const key = await createApiKey(t, ['emailInbox:read'], 'last-used key');
    const unused = await createApiKey(t, ['emailInbox:read'], 'unused key');
    expect((await listed('last-used key')).lastUsedAt).toBeNull();

    const first = clock.now().toISOString();
    await useKey(key);
    expect((await listed('last-used key')).lastUsedAt).toBe(first);

    // Used again within the minute: nothing is written (the stored value stays the first use).
    clock.advance(30_000);
    await useKey(key);
    expect((await listed('last-used key')).lastUsedAt).toBe(first);

    // After the minute: written again.
    clock.advance(31_000);
    const later = clock.now().toISOString();
    await useKey(key);
    expect((await listed('last-used key')).lastUsedAt).toBe(later);

    // Never used, never written; a refused key value writes nothing either.
    const refused = await t.app.inject({
      method: 'GET',
      url: '/v1/email-inboxes/limits',
      headers: { 'x-api-key': `${unused.slice(0, -4)}zzzz` },
    });
    expect(refused.statusCode).toBe(401);
    expect((await listed('unused key')).lastUsedAt).toBeNull();
    expect(unused).not.toBe(key);
  });

  it('the stored value itself refuses a second write within the minute (another instance)', async () => {
    await createApiKey(t, ['emailInbox:read'], 'shared key');
    const { id } = await listed('shared key');
    const errors: unknown[] = [];
    // Two instances: each remembers nothing of the other's writes.
    const instanceA = new ApiKeyUsage({ db: t.ctx.db, clock, logError: (error) => errors.push(error) });
    const instanceB = new ApiKeyUsage({ db: t.ctx.db, clock, logError: (error) => errors.push(error) });
    const first = clock.now().toISOString();
    instanceA.record(id);
    await instanceA.settled();
    clock.advance(20_000);
    instanceB.record(id);
    await instanceB.settled();
    expect((await listed('shared key')).lastUsedAt).toBe(first);
    // A minute after its own attempt, B writes again (the stored value is older than a minute).
    clock.advance(60_000);
    instanceB.record(id);
    await instanceB.settled();
    expect((await listed('shared key')).lastUsedAt).toBe(clock.now().toISOString());
    expect(errors).toEqual([]);
  });

  it('a failed write is reported, not thrown, and retried on the next use', async () => {
    const errors: Array<{ error: unknown; id: string }> = [];
    let failing = true;
    const db = new Proxy(t.ctx.db, {
      get(target, property) {
        if (property === 'updateTable' && failing) {
          return () => {
            throw new Error('database is gone');
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await createApiKey(t, ['emailInbox:read'], 'failing key');
    const { id } = await listed('failing key');
    const usage = new ApiKeyUsage({
      db,
      clock,
      logError: (error, apiKeyId) => errors.push({ error, id: apiKeyId }),
    });
    expect(() => usage.record(id)).not.toThrow();
    await usage.settled();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.id).toBe(id);
    expect((await listed('failing key')).lastUsedAt).toBeNull();
    failing = false;
    usage.record(id);
    await usage.settled();
    expect((await listed('failing key')).lastUsedAt).toBe(clock.now().toISOString());
  });
});
