import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTestApp, databaseKinds, type TestApp } from '../helper.ts';

/**
 * The embedded default remembers key lookups between writes (see modules/accounts/credentials-repository.ts).
 * These requests warm that memory first, then change the data behind it in ways that do not go
 * through the console, and expect the very next request to see the change.
 */
describe.each(databaseKinds)('credential lookups stay exact on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ database });
  });
  afterAll(async () => t?.close());

  const limits = (key: string) =>
    t.app.inject({ method: 'GET', url: '/v1/email-inboxes/limits', headers: { 'x-api-key': key } });

  it('refuses a key deleted straight from the database on the next request', async () => {
    const key = await createApiKey(t, ['emailInbox:read'], 'deleted behind the cache');
    for (let i = 0; i < 3; i++) expect((await limits(key)).statusCode).toBe(200);
    await t.ctx.db.deleteFrom('apiKeys').where('name', '=', 'deleted behind the cache').execute();
    expect((await limits(key)).statusCode).toBe(401);
  });

  it('sees a scope change and a subscription change on the next request', async () => {
    const key = await createApiKey(t, ['emailInbox:read', 'emailInbox:delete'], 'scopes behind the cache');
    expect((await limits(key)).statusCode).toBe(200);
    await t.ctx.db
      .updateTable('apiKeys')
      .set({ scopes: JSON.stringify(['emailInbox:delete']) })
      .where('name', '=', 'scopes behind the cache')
      .execute();
    const refused = await limits(key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ message: '', code: 'MISSING_SCOPE' });

    const deleteInbox = () =>
      t.app.inject({
        method: 'DELETE',
        url: '/v1/email-inboxes/00000000-0000-4000-8000-000000000000',
        headers: { 'x-api-key': key },
      });
    expect((await deleteInbox()).statusCode).toBe(404);
    await t.ctx.db.updateTable('organizations').set({ subscriptionActive: 0 }).execute();
    const licensed = await deleteInbox();
    expect(licensed.statusCode).toBe(403);
    expect(licensed.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
    await t.ctx.db.updateTable('organizations').set({ subscriptionActive: 1 }).execute();
    expect((await deleteInbox()).statusCode).toBe(404);
  });

  it('does not keep an answer read inside a transaction that is rolled back', async () => {
    const key = await createApiKey(t, ['emailInbox:read'], 'rolled back');
    await t.ctx.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('apiKeys')
          .set({ revokedAt: new Date().toISOString() })
          .where('name', '=', 'rolled back')
          .execute();
        // A request served while the transaction is open may see its writes...
        await limits(key);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    // ...but once it is rolled back the key works again.
    expect((await limits(key)).statusCode).toBe(200);
  });
});
