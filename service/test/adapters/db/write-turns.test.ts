import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, writeTurnRules } from '../../../src/adapters/db/index.ts';
import { transaction } from '../../../src/adapters/db/locks.ts';
import { createPostgresDatabase } from '../../helper.ts';

/**
 * Reads under writes: the write transactions of `transaction()` take turns
 * (`writeTurnRules`, docs/concurrency.md), so a request's own statements are not queued behind
 * a crowd of writers. Asserted by order of events, not by timing.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(kind: 'sqlite' | 'postgres'): Promise<DatabaseHandle> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-turns-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl: string | undefined;
  if (kind === 'postgres') {
    const created = await createPostgresDatabase();
    cleanups.push(created.drop);
    databaseUrl = created.url;
  }
  const database = await openDatabase({ databaseUrl, dataDir });
  cleanups.push(() => database.close());
  return database;
}

describe('write turns', () => {
  it('PostgreSQL: at most 4 write transactions at once; a single statement on the same pool is answered while they hold theirs', async () => {
    const database = await open('postgres');
    const release = Promise.withResolvers<void>();
    let running = 0;
    let mostAtOnce = 0;
    const started: Array<Promise<void>> = [];
    const writers = Array.from({ length: 20 }, () => {
      const begun = Promise.withResolvers<void>();
      started.push(begun.promise);
      return transaction(database.db, async (trx) => {
        await sql`select 1`.execute(trx);
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        begun.resolve();
        await release.promise;
        running--;
      });
    });
    try {
      // The first six hold their connections until released; the other fourteen wait their turn.
      await Promise.all(started.slice(0, writeTurnRules.postgres.atOnce));
      expect(running).toBe(writeTurnRules.postgres.atOnce);

      // What every request runs first (the API key lookup) goes to the same pool: it is answered
      // while the writers hold theirs. Without the turns, 10 writers would hold all 10
      // connections and this would wait for `release`, which only comes after it: it would
      // never be answered (the deadline only turns that hang into a failure).
      const neverAnswered = new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error('the lookup queued behind the write transactions')),
          20_000,
        ).unref(),
      );
      const lookup = await Promise.race([
        sql<{ one: number }>`select 1 as one`.execute(database.db),
        neverAnswered,
      ]);
      expect(lookup.rows).toEqual([{ one: 1 }]);
      expect(running).toBe(writeTurnRules.postgres.atOnce);
    } finally {
      release.resolve();
      await Promise.allSettled(writers);
    }
    expect(mostAtOnce).toBe(writeTurnRules.postgres.atOnce);
  }, 60_000);

  it('SQLite: queued write transactions give the event loop a turn, so a request waiting on it is served before the queue ends', async () => {
    const database = await open('sqlite');
    await sql`create table "spins" ("n" integer)`.execute(database.db);
    const events: string[] = [];
    const served = Promise.withResolvers<void>();
    // Each transaction keeps the (synchronous) event loop busy for 3 ms, as a real write does.
    const writers = Array.from({ length: 30 }, (_, index) =>
      transaction(database.db, async (trx) => {
        // A request that arrives once the queue runs: its callback waits for a turn of the loop.
        if (index === 0)
          setImmediate(() => {
            events.push('request');
            served.resolve();
          });
        const until = performance.now() + 3;
        while (performance.now() < until);
        await sql`insert into "spins" ("n") values (${index})`.execute(trx);
        events.push(`write ${index}`);
      }),
    );
    await Promise.all([...writers, served.promise]);

    const requestAt = events.indexOf('request');
    const writesBefore = requestAt;
    // Not after all 30 writes (90 ms of them): within about one slice of writeTurnRules.sqlite
    // (the product's slice is 0: every write waits for a turn of its own, so at most the write
    // that was running when the request arrived goes first).
    expect(writesBefore).toBeLessThan(30);
    expect(writesBefore).toBeLessThanOrEqual(Math.ceil(writeTurnRules.sqlite.yieldAfterMs / 3) + 1);
    expect(writesBefore).toBeLessThanOrEqual(1);
    // And the writes themselves all committed, in the order they were queued.
    const rows = await sql<{ n: number }>`select "n" from "spins" order by rowid`.execute(database.db);
    expect(rows.rows.map((row) => row.n)).toEqual(Array.from({ length: 30 }, (_, index) => index));
  }, 60_000);
});
