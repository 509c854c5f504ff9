import { type RawBuilder, sql } from 'kysely';
import { chunk, type Db, type Tx } from '../../adapters/db/index.ts';

/**
 * The tests module's SQL over revisions (`testRevisions`, `attachments`) as the steps module
 * needs it when it edits steps (`steps/step-usage.ts`, and `isWorkingRevision` passed into the
 * step-tree store's queries): it reaches the revisions only through these functions (exported
 * by `public.ts`), never by naming the tables itself.
 */

type Executor = Db | Tx;

/**
 * Whether the revision whose id the caller's query holds in `revisionId` (a column reference)
 * is a working revision, on the branch when one is given: a correlated condition the steps
 * module puts in its own queries over revision trees.
 */
export const isWorkingRevision = (revisionId: RawBuilder<unknown>, branchId?: string) =>
  branchId === undefined
    ? sql<boolean>`exists (select 1 from "testRevisions" r where r.id = ${revisionId} and r.kind = 'working')`
    : sql<boolean>`exists (select 1 from "testRevisions" r where r.id = ${revisionId} and r.kind = 'working' and r."branchId" = ${branchId})`;

/** The working revisions of the project among these ids, by id. */
export async function workingRevisionsOf(db: Executor, projectId: string, revisionIds: readonly string[]) {
  const found = new Map<
    string,
    { id: string; testId: string; name: string; branchId: string; type: 'ui' | 'api' }
  >();
  for (const part of chunk([...new Set(revisionIds)], 500)) {
    const rows = await db
      .selectFrom('testRevisions')
      .select(['id', 'testId', 'name', 'branchId', 'type'])
      .where('id', 'in', part)
      .where('kind', '=', 'working')
      .where('projectId', '=', projectId)
      .execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

/** Marks working revisions as having unsaved changes (a new edit version). */
export async function markEdited(db: Executor, revisionIds: string[], now: string) {
  const ids = [...new Set(revisionIds)];
  if (ids.length === 0) return;
  await db
    .updateTable('testRevisions')
    .set((eb) => ({ dirty: 1, updatedAt: now, editVersion: eb('editVersion', '+', 1) }))
    .where('id', 'in', ids)
    .execute();
}

/** As `markEdited` for one revision whose tree changed size, with its new step count. */
export async function markEditedWithStepsCount(
  db: Executor,
  revisionId: string,
  now: string,
  stepsCount: number,
) {
  await db
    .updateTable('testRevisions')
    .set((eb) => ({ dirty: 1, updatedAt: now, stepsCount, editVersion: eb('editVersion', '+', 1) }))
    .where('id', '=', revisionId)
    .execute();
}

export async function deleteStepAttachments(db: Executor, stepId: string) {
  await db.deleteFrom('attachments').where('stepId', '=', stepId).execute();
}
