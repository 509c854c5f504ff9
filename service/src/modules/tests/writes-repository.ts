import type { Insertable, Updateable } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import type { Database } from '../../adapters/db/schema.ts';

/**
 * The statements of test writes (`writes.ts`): each runs inside the caller's transaction,
 * after the locks and checks the caller took, in the order the caller decides.
 */

type Executor = Db | Tx;

export async function insertTest(trx: Executor, row: Insertable<Database['tests']>) {
  await trx.insertInto('tests').values(row).execute();
}

export async function updateTestRow(trx: Executor, testId: string, changes: Updateable<Database['tests']>) {
  await trx.updateTable('tests').set(changes).where('id', '=', testId).execute();
}

/** A revision's changes are saved (a manual revision was taken of it). */
export async function markRevisionSaved(trx: Executor, revisionId: string) {
  await trx.updateTable('testRevisions').set({ dirty: 0 }).where('id', '=', revisionId).execute();
}

/** Updates a revision still at `editVersion`; false when another edit came first. */
export async function updateRevisionAtVersion(
  trx: Executor,
  revisionId: string,
  editVersion: number,
  changes: Updateable<Database['testRevisions']>,
): Promise<boolean> {
  const result = await trx
    .updateTable('testRevisions')
    .set(changes)
    .where('id', '=', revisionId)
    .where('editVersion', '=', editVersion)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) !== 0;
}

/** A new status on revisions, each a new edit version; 500 per statement. */
export async function setStatusOfRevisions(
  trx: Executor,
  revisionIds: string[],
  status: 'draft' | 'active' | 'archived',
  now: string,
) {
  for (const part of chunk(revisionIds, 500))
    await trx
      .updateTable('testRevisions')
      .set((eb) => ({ status, dirty: 1, updatedAt: now, editVersion: eb('editVersion', '+', 1) }))
      .where('id', 'in', part)
      .execute();
}

/** Revisions changed now (their tags did); 500 per statement. */
export async function touchRevisions(trx: Executor, revisionIds: string[], now: string) {
  for (const part of chunk(revisionIds, 500))
    await trx.updateTable('testRevisions').set({ updatedAt: now }).where('id', 'in', part).execute();
}

/** Removes these tests' revisions on one branch (one statement: callers chunk). */
export async function deleteRevisionsOnBranch(trx: Executor, testIds: string[], branchId: string) {
  await trx
    .deleteFrom('testRevisions')
    .where('testId', 'in', testIds)
    .where('branchId', '=', branchId)
    .execute();
}

/** Those of these tests that still have a revision on some branch (one statement). */
export async function testIdsWithRevisions(trx: Executor, testIds: string[]): Promise<Set<string>> {
  const remaining = await trx
    .selectFrom('testRevisions')
    .select('testId')
    .distinct()
    .where('testId', 'in', testIds)
    .execute();
  return new Set(remaining.map((row) => row.testId));
}

export async function deleteTestRows(trx: Executor, testIds: string[]) {
  await trx.deleteFrom('tests').where('id', 'in', testIds).execute();
}
