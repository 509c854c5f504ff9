import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';

/**
 * The tests module's SQL over revision trees (`testRevisions`, `revisionSteps`, `attachments`)
 * as the steps module needs it: the steps module edits canonical steps and reaches the trees
 * that use them only through these functions, never by naming the tables itself.
 */

type Executor = Db | Tx;
type Scope = { projectId: string; branchId: string };

/**
 * A canonical step (aliased `s` in the caller's query) is visible on a branch when a working
 * revision there uses it, when a shared group links it, or when nothing uses it at all.
 */
export const stepVisibleOn = (branchId: string) =>
  sql<boolean>`(exists (select 1 from "revisionSteps" rs inner join "testRevisions" r on r.id = rs."revisionId" where rs."stepId" = s.id and r.kind = 'working' and r."branchId" = ${branchId})
      or exists (select 1 from "stepChildren" sc where sc."childStepId" = s.id)
      or not exists (select 1 from "revisionSteps" rs2 inner join "testRevisions" r2 on r2.id = rs2."revisionId" where rs2."stepId" = s.id and r2.kind = 'working'))`;

/** Working revisions (with branch) whose trees reference a canonical step directly. */
export async function usages(db: Executor, projectId: string, stepId: string) {
  return db
    .selectFrom('revisionSteps as rs')
    .innerJoin('testRevisions as r', 'r.id', 'rs.revisionId')
    .innerJoin('branches as b', 'b.id', 'r.branchId')
    .select(['r.id as revisionId', 'r.testId', 'r.name', 'r.branchId', 'b.name as branchName'])
    .where('rs.stepId', '=', stepId)
    .where('r.kind', '=', 'working')
    .where('r.projectId', '=', projectId)
    .execute();
}

/** Whether any revision tree (working or saved, any branch) references the step. */
export async function stepInAnyTree(db: Executor, stepId: string): Promise<boolean> {
  const row = await db
    .selectFrom('revisionSteps')
    .select('id')
    .where('stepId', '=', stepId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A node of a working revision on the branch, with its test and canonical step. */
export async function findWorkingNode(db: Executor, scope: Scope, revisionStepId: string) {
  return db
    .selectFrom('revisionSteps as rs')
    .innerJoin('testRevisions as r', 'r.id', 'rs.revisionId')
    .innerJoin('steps as s', 's.id', 'rs.stepId')
    .select([
      'rs.id',
      'rs.revisionId',
      'r.testId',
      's.id as stepId',
      's.name',
      's.isGroup',
      's.shared',
      'r.type',
    ])
    .where('rs.id', '=', revisionStepId)
    .where('r.kind', '=', 'working')
    .where('r.branchId', '=', scope.branchId)
    .where('r.projectId', '=', scope.projectId)
    .executeTakeFirst();
}

export async function nodeExists(db: Executor, revisionStepId: string): Promise<boolean> {
  const row = await db
    .selectFrom('revisionSteps')
    .select('id')
    .where('id', '=', revisionStepId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The direct children of a node: their node ids and canonical steps. */
export async function childNodes(db: Executor, revisionId: string, parentId: string) {
  return db
    .selectFrom('revisionSteps')
    .select(['id', 'stepId'])
    .where('revisionId', '=', revisionId)
    .where('parentId', '=', parentId)
    .execute();
}

export async function setNodePosition(db: Executor, revisionStepId: string, position: number) {
  await db.updateTable('revisionSteps').set({ position }).where('id', '=', revisionStepId).execute();
}

/** Points the given revisions' nodes from one canonical step to another (copy-on-write). */
export async function repointNodes(
  db: Executor,
  fromStepId: string,
  toStepId: string,
  revisionIds: string[],
) {
  if (revisionIds.length === 0) return;
  await db
    .updateTable('revisionSteps')
    .set({ stepId: toStepId })
    .where('stepId', '=', fromStepId)
    .where('revisionId', 'in', revisionIds)
    .execute();
}

/** Removes nodes and, level by level, everything below them. */
export async function deleteNodes(db: Executor, revisionId: string, ids: string[]) {
  let frontier = ids;
  while (frontier.length > 0) {
    const children = await db
      .selectFrom('revisionSteps')
      .select('id')
      .where('revisionId', '=', revisionId)
      .where('parentId', 'in', frontier)
      .execute();
    await db.deleteFrom('revisionSteps').where('id', 'in', frontier).execute();
    frontier = children.map((child) => child.id);
  }
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

/** As `markEdited` for one revision whose tree changed size: its step count is recounted. */
export async function markEditedAndRecount(db: Executor, revisionId: string, now: string) {
  const count = await db
    .selectFrom('revisionSteps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revisionId', '=', revisionId)
    .executeTakeFirst();
  await db
    .updateTable('testRevisions')
    .set((eb) => ({
      dirty: 1,
      updatedAt: now,
      stepsCount: Number(count?.n ?? 0),
      editVersion: eb('editVersion', '+', 1),
    }))
    .where('id', '=', revisionId)
    .execute();
}

export async function deleteStepAttachments(db: Executor, stepId: string) {
  await db.deleteFrom('attachments').where('stepId', '=', stepId).execute();
}
