import type { Insertable } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import type { Database } from '../../adapters/db/schema.ts';
import { notFound } from '../../errors.ts';
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
  if (!row) throw notFound('Step not found');
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
