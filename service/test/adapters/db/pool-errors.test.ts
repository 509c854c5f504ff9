import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/adapters/db/index.ts';
import { createPostgresDatabase } from '../../helper.ts';
import { startProxy } from '../../tcp-proxy.ts';

/** How many `pg_sleep` queries the server is running in that database (asked directly, not via the proxy). */
async function sleepingOnServer(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      "select count(*) from pg_stat_activity where datname = current_database() and state = 'active' and query like 'select pg_sleep%'",
    );
    return Number(rows[0]?.count);
  } finally {
    await client.end();
  }
}

describe('PostgreSQL connections lost under the service', () => {
  it('reports a connection lost mid-query and mid-transaction, idle or checked out, without an unhandled error', async () => {
    const created = await createPostgresDatabase();
    const proxy = await startProxy(new URL(created.url));
    const viaProxy = new URL(created.url);
    viaProxy.port = String(proxy.port());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-pool-'));
    const database = await openDatabase({ databaseUrl: viaProxy.toString(), dataDir });
    const reported: string[] = [];
    database.onPoolError = (error) => reported.push(error.message);
    try {
      // Three connections at once when the server goes away: one running a query on the write
      // pool, one inside an open transaction between statements, one running a read.
      const inTransaction = Promise.withResolvers<void>();
      const query = sql`select pg_sleep(30)`.execute(database.db);
      const read = sql`select pg_sleep(30)`.execute(database.reads);
      const transaction = database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        inTransaction.resolve();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await sql`select 1`.execute(trx);
      });
      await inTransaction.promise;
      // A connection still being opened when the server goes away fails its own connect (its
      // caller gets the error; nothing was lost), so wait until both sleeps run on the server.
      await expect.poll(() => sleepingOnServer(created.url), { timeout: 10_000, interval: 20 }).toBe(2);
      await proxy.down();

      const [queryOutcome, readOutcome, transactionOutcome] = await Promise.allSettled([
        query,
        read,
        transaction,
      ]);
      expect(queryOutcome).toMatchObject({
        status: 'rejected',
        reason: { message: 'Connection terminated unexpectedly' },
      });
      expect(readOutcome).toMatchObject({
        status: 'rejected',
        reason: { message: 'Connection terminated unexpectedly' },
      });
      expect(transactionOutcome.status).toBe('rejected');
      // Every lost connection is reported (logged by the app), once each. The reports come from
      // each socket's own 'error'/'end' handling, which may run after the queries were
      // rejected: wait (with a deadline) for the third, then check no fourth follows.
      const lostReports = () => reported.filter((message) => /Connection terminated/.test(message)).length;
      await expect.poll(lostReports, { timeout: 10_000, interval: 20 }).toBe(3);

      // The pools drop the dead connections: once the server is back, queries work again.
      await proxy.up();
      const again = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(again.rows).toEqual([{ one: 1 }]);
      const readAgain = await sql<{ one: number }>`select 1 as one`.execute(database.reads);
      expect(readAgain.rows).toEqual([{ one: 1 }]);
      expect(lostReports()).toBe(3);
    } finally {
      await proxy.up();
      await database.close();
      await created.drop();
      await proxy.down();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
