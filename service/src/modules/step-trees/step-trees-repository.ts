import { type Insertable, sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import type { Database } from '../../adapters/db/schema.ts';
import { appError } from '../../errors.ts';
import { chunk, type StepRow } from './step-rows.ts';

/**
 * The queries of step trees: canonical steps (`steps`), shared-group links (`stepChildren`)
 * and revision nodes (`revisionSteps`), read in batches by `step-trees.ts` and written by
 * `step-writer.ts`. Reads take one chunk of ids (callers chunk); writes chunk themselves.
 */

type Executor = Db | Tx;

export type RevisionNodeRow = {
  id: string;
  revisionId: string;
  stepId: string;
  parentId: string | null;
  position: number;
};

/** Canonical steps by id (one chunk). */
export async function stepRowsWithIds(db: Executor, ids: string[]): Promise<StepRow[]> {
  return db
    .selectFrom('steps')
    .select(['id', 'projectId', 'name', 'action', 'metadata', 'condition', 'shared', 'isGroup', 'type'])
    .where('id', 'in', ids)
    .execute();
}

/** The children links of these shared groups, by position (one chunk). */
export async function sharedLinksOf(db: Executor, parentStepIds: string[]) {
  return db
    .selectFrom('stepChildren')
    .select(['id', 'parentStepId', 'childStepId', 'position'])
    .where('parentStepId', 'in', parentStepIds)
    .orderBy('position')
    .execute();
}

/** The nodes of these revisions' trees (one chunk). */
export async function revisionNodesOf(db: Executor, revisionIds: string[]): Promise<RevisionNodeRow[]> {
  return db
    .selectFrom('revisionSteps')
    .select(['id', 'revisionId', 'stepId', 'parentId', 'position'])
    .where('revisionId', 'in', revisionIds)
    .execute();
}

/** One page of the nodes of these revisions' trees, by id after `after` (one chunk). */
export async function revisionNodesPage(
  db: Executor,
  revisionIds: string[],
  after: string | undefined,
  limit: number,
): Promise<RevisionNodeRow[]> {
  let query = db
    .selectFrom('revisionSteps')
    .select(['id', 'revisionId', 'stepId', 'parentId', 'position'])
    .where('revisionId', 'in', revisionIds);
  if (after !== undefined) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}

export async function requireStep(
  db: Executor,
  projectId: string,
  stepId: string,
  lock?: 'update',
): Promise<StepRow> {
  let query = db
    .selectFrom('steps')
    .select(['id', 'projectId', 'name', 'action', 'metadata', 'condition', 'shared', 'isGroup', 'type'])
    .where('id', '=', stepId)
    .where('projectId', '=', projectId);
  if (lock && onPostgres(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw appError('STEP_NOT_FOUND');
  return row;
}

/** Writes a tree's rows: canonical steps, then shared-group links, then revision nodes, in chunks. */
export async function insertStepTreeRows(
  trx: Executor,
  rows: {
    steps: Array<Insertable<Database['steps']>>;
    stepChildren: Array<Insertable<Database['stepChildren']>>;
    revisionSteps: RevisionNodeRow[];
  },
) {
  for (const part of chunk(rows.steps, 200)) await trx.insertInto('steps').values(part).execute();
  for (const part of chunk(rows.stepChildren, 300))
    await trx.insertInto('stepChildren').values(part).execute();
  await insertRevisionNodes(trx, rows.revisionSteps);
}

export async function insertRevisionNodes(trx: Executor, nodes: RevisionNodeRow[]) {
  for (const part of chunk(nodes, 300)) await trx.insertInto('revisionSteps').values(part).execute();
}

/**
 * UTF-8 bytes a step takes as stored: its name and its action, condition and metadata JSON (the
 * measure of `MAX_STEP_TREE_BYTES`; `stepBytes` in step-limits.ts counts the same in JavaScript).
 */
function storedBytes(db: Executor) {
  const octets = (column: string) =>
    onPostgres(db)
      ? sql<number>`coalesce(octet_length(${sql.ref(column)}), 0)`
      : sql<number>`coalesce(length(cast(${sql.ref(column)} as blob)), 0)`;
  return sql<number>`(${octets('s.name')} + ${octets('s.action')} + ${octets('s.condition')} + ${octets('s.metadata')})`;
}

/** Canonical steps by id with their stored size (one chunk). */
export async function stepSizeRows(db: Executor, ids: string[]) {
  return db
    .selectFrom('steps as s')
    .select(['s.id', 's.isGroup', 's.shared', storedBytes(db).as('bytes')])
    .where('s.id', 'in', ids)
    .execute();
}

/**
 * Per revision (one chunk): its nodes and their steps' stored bytes, and the nodes that point at a
 * shared group (whose canonical children the tree shows below them).
 */
export async function revisionNodeTotals(db: Executor, revisionIds: string[]) {
  const totals = await db
    .selectFrom('revisionSteps as rs')
    .innerJoin('steps as s', 's.id', 'rs.stepId')
    .select((eb) => [
      'rs.revisionId',
      eb.fn.countAll<number>().as('steps'),
      eb.fn.sum<number>(storedBytes(db)).as('bytes'),
    ])
    .where('rs.revisionId', 'in', revisionIds)
    .groupBy('rs.revisionId')
    .execute();
  const sharedGroups = await db
    .selectFrom('revisionSteps as rs')
    .innerJoin('steps as s', 's.id', 'rs.stepId')
    .select(['rs.revisionId', 'rs.stepId'])
    .where('rs.revisionId', 'in', revisionIds)
    .where('s.shared', '=', 1)
    .where('s.isGroup', '=', 1)
    .execute();
  return { totals, sharedGroups };
}

/** The groups linking any of these steps as a child (one chunk). */
export async function parentGroupsOf(db: Executor, stepIds: string[]) {
  return db
    .selectFrom('stepChildren')
    .select(['parentStepId', 'childStepId'])
    .where('childStepId', 'in', stepIds)
    .execute();
}

/** Revisions (any kind) whose trees point at any of these steps directly (one chunk). */
export async function revisionsReferencing(db: Executor, stepIds: string[]) {
  const rows = await db
    .selectFrom('revisionSteps')
    .select('revisionId')
    .distinct()
    .where('stepId', 'in', stepIds)
    .execute();
  return rows.map((row) => row.revisionId);
}
