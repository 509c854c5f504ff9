/**
 * The queries of export and import: which tests carry these tags, and the batched inserts of an
 * imported archive (tests, their working revisions, their tag links), run in the import's
 * transaction.
 */
import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import type { Database } from '../../adapters/db/schema.ts';
import type { revisionRow } from './repository.ts';

type Executor = Db | Tx;

/** Ids of the tests linked to any of these tags. */
export async function testIdsTaggedAny(db: Executor, tagIds: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('testTags')
    .select('testId')
    .where('tagId', 'in', [...tagIds])
    .execute();
  return rows.map((row) => row.testId);
}

/** Inserts tests in batches of 200 rows. */
export async function insertTestRows(trx: Tx, rows: Insertable<Database['tests']>[]) {
  for (const part of chunk(rows, 200)) await trx.insertInto('tests').values(part).execute();
}

/** Inserts revisions in batches of 100 rows. */
export async function insertRevisionRows(trx: Tx, rows: ReturnType<typeof revisionRow>[]) {
  for (const part of chunk(rows, 100)) await trx.insertInto('testRevisions').values(part).execute();
}

/** Inserts test–tag links in batches of 400 rows. */
export async function insertTagLinks(trx: Tx, rows: Array<{ testId: string; tagId: string }>) {
  for (const part of chunk(rows, 400)) await trx.insertInto('testTags').values(part).execute();
}
