import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../../src/adapters/db/index.ts';

/**
 * Reads under writes on the embedded default: WAL checkpoints run in their own thread,
 * never inside a request's commit on the event loop.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it('SQLite: commits past 1000 pages of WAL leave the checkpoint to the checkpoint thread, which copies them; close leaves no WAL', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-checkpoint-'));
  dirs.push(dataDir);
  const file = path.join(dataDir, 'stepdeck.sqlite');
  const database = await openDatabase({ dataDir });
  try {
    expect(database.sqlite?.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await sql`create table "filler" ("text" text)`.execute(database.db);
    // ~6 MB in one commit: some 1500 pages, past the 1000 that would checkpoint in the commit.
    const sizeBefore = fs.statSync(file).size;
    await database.db.transaction().execute(async (trx) => {
      for (let index = 0; index < 3000; index++)
        await sql`insert into "filler" ("text") values (${'x'.repeat(2000)})`.execute(trx);
    });
    // The commit itself copied nothing into the database file...
    expect(fs.statSync(file).size).toBe(sizeBefore);
    // ...the checkpoint thread does, within a few of its one-second rounds.
    await expect
      .poll(() => fs.statSync(file).size, { timeout: 30_000, interval: 100 })
      .toBeGreaterThan(5_000_000);
    const rows = await sql<{ n: number }>`select count(*) as "n" from "filler"`.execute(database.reads);
    expect(rows.rows).toEqual([{ n: 3000 }]);
  } finally {
    await database.close();
  }
  expect(fs.existsSync(`${file}-wal`)).toBe(false);
}, 60_000);
