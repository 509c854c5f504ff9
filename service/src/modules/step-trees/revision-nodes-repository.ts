import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';

/**
 * The nodes of revision trees (`revisionSteps`): which canonical step sits where in a test
 * revision's tree. The revisions themselves are the tests module's: this store never reads
 * them, and a query that must know whether a revision is working takes the tests module's
 * condition as an argument (`WorkingRevision`), so the store depends on no module above it.
 */

type Executor = Db | Tx;

/** The tests module's SQL condition "this revision is a working one (on this branch)". */
export type WorkingRevision = (revisionId: RawBuilder<unknown>, branchId?: string) => RawBuilder<boolean>;

/**
 * A canonical step (aliased `s` in the caller's query) is visible on a branch when a working
 * revision there uses it, when a shared group links it, or when nothing uses it at all.
 */
export const stepVisibleOn = (isWorkingRevision: WorkingRevision, branchId: string) =>
  sql<boolean>`(exists (select 1 from "revisionSteps" rs where rs."stepId" = s.id and ${isWorkingRevision(sql.ref('rs.revisionId'), branchId)})
      or exists (select 1 from "stepChildren" sc where sc."childStepId" = s.id)
      or not exists (select 1 from "revisionSteps" rs2 where rs2."stepId" = s.id and ${isWorkingRevision(sql.ref('rs2.revisionId'))}))`;

/** The revisions whose trees reference a canonical step directly: one entry per node. */
export async function revisionsUsing(db: Executor, stepId: string): Promise<string[]> {
  const nodes = await db
    .selectFrom('revisionSteps')
    .select('revisionId')
    .where('stepId', '=', stepId)
    .execute();
  return nodes.map((node) => node.revisionId);
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

/** A node of a revision tree, with its canonical step. */
export async function findNode(db: Executor, revisionStepId: string) {
  return db
    .selectFrom('revisionSteps as rs')
    .innerJoin('steps as s', 's.id', 'rs.stepId')
    .select(['rs.id', 'rs.revisionId', 's.id as stepId', 's.name', 's.isGroup', 's.shared'])
    .where('rs.id', '=', revisionStepId)
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

/** Removes a revision's whole tree (its nodes; the canonical steps stay). */
export async function deleteRevisionTree(db: Executor, revisionId: string) {
  await db.deleteFrom('revisionSteps').where('revisionId', '=', revisionId).execute();
}

/** How many nodes a revision's tree has. */
export async function countNodes(db: Executor, revisionId: string): Promise<number> {
  const count = await db
    .selectFrom('revisionSteps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revisionId', '=', revisionId)
    .executeTakeFirst();
  return Number(count?.n ?? 0);
}
