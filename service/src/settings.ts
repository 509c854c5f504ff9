import { randomBytes } from 'node:crypto';
import type { Db } from './adapters/db/index.ts';

/**
 * A random install-wide secret, created on first use and shared by every instance through
 * the database (used to sign artifact URLs and the like). Never logged or returned.
 */
export async function installSecret(db: Db, name: string): Promise<Buffer> {
  const existing = await readSetting(db, name);
  if (existing !== null) return Buffer.from(existing, 'base64');
  // Another instance may create it first: whichever value was stored wins.
  await db
    .insertInto('settings')
    .values({ key: name, value: randomBytes(32).toString('base64') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await readSetting(db, name);
  if (stored === null) throw new Error(`install secret ${name} could not be stored`);
  return Buffer.from(stored, 'base64');
}

/** A plain install-wide setting shared by every instance through the database; null when unset. */
export async function readSetting(db: Db, name: string): Promise<string | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', name).executeTakeFirst();
  return row?.value ?? null;
}

/** Sets a plain install-wide setting (the last writer wins). */
export async function writeSetting(db: Db, name: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: name, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
