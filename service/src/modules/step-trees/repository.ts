import type { Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, pageWindow } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import type { Database } from '../../adapters/db/schema.ts';
import { stepInAnyTree, stepVisibleOn, type WorkingRevision } from './revision-nodes-repository.ts';
import { chunk, type StepRow } from './step-rows.ts';

/**
 * The step-tree store's SQL: canonical steps (`steps`) and shared-group links (`stepChildren`).
 * The nodes of revision trees are in `revision-nodes-repository.ts`; the revisions are the tests module's.
 */

type Executor = Db | Tx;
type Scope = { projectId: string; branchId: string };

const stepColumns = [
  's.id',
  's.projectId',
  's.name',
  's.action',
  's.metadata',
  's.condition',
  's.shared',
  's.isGroup',
  's.type',
] as const;

/** A step of the project visible on the branch; `isWorking` is the tests module's condition. */
export async function findVisibleStep(
  db: Executor,
  scope: Scope,
  isWorking: WorkingRevision,
  stepId: string,
): Promise<StepRow | undefined> {
  return db
    .selectFrom('steps as s')
    .select(stepColumns)
    .where('s.id', '=', stepId)
    .where('s.projectId', '=', scope.projectId)
    .where(stepVisibleOn(isWorking, scope.branchId))
    .executeTakeFirst();
}

/** One page of the shared steps visible on the branch, by name, and their total. */
export async function sharedStepsPage(
  db: Executor,
  scope: Scope,
  isWorking: WorkingRevision,
  query: { limit: number; page: number; search?: string | undefined; type: 'all' | 'ui' | 'api' },
) {
  let base = db
    .selectFrom('steps as s')
    .where('s.projectId', '=', scope.projectId)
    .where('s.shared', '=', 1)
    .where(stepVisibleOn(isWorking, scope.branchId));
  if (query.search)
    base = base.where(
      sql<boolean>`s."nameLower" like ${`%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`,
    );
  if (query.type !== 'all') base = base.where('s.type', '=', query.type);
  const total = Number(
    (await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0,
  );
  const window = pageWindow(query.page, query.limit, total);
  const rows: StepRow[] = !window
    ? []
    : await base
        .select(stepColumns)
        .orderBy('s.nameLower')
        .orderBy('s.id')
        .limit(window.limit)
        .offset(window.offset)
        .execute();
  return { rows, total };
}

/** The ordered children of a shared group, with their link ids. */
export async function groupChildren(db: Executor, groupId: string) {
  return db
    .selectFrom('stepChildren as c')
    .innerJoin('steps as s', 's.id', 'c.childStepId')
    .select(['c.id as linkId', 's.id', 's.name', 's.action', 'c.position'])
    .where('c.parentStepId', '=', groupId)
    .orderBy('c.position')
    .execute();
}

/** Removes a non-shared canonical step (and its linked children) nothing references any more. */
export async function deleteIfOrphan(trx: Executor, stepId: string, depth = 0): Promise<void> {
  if (depth > 20) return;
  const row = await trx
    .selectFrom('steps')
    .select(['id', 'shared'])
    .where('id', '=', stepId)
    .executeTakeFirst();
  if (!row || fromFlag(row.shared)) return;
  const linked = await trx
    .selectFrom('stepChildren')
    .select('id')
    .where('childStepId', '=', stepId)
    .executeTakeFirst();
  if (linked || (await stepInAnyTree(trx, stepId))) return;
  const children = await trx
    .selectFrom('stepChildren')
    .select('childStepId')
    .where('parentStepId', '=', stepId)
    .execute();
  await trx.deleteFrom('steps').where('id', '=', stepId).execute();
  for (const child of children) await deleteIfOrphan(trx, child.childStepId, depth + 1);
}

type StepFields = Updateable<Database['steps']>;
type LinkRow = Database['stepChildren'];

/** A new canonical step with the given id, copied from `row` with `fields` applied. */
export async function insertStepCopy(
  db: Executor,
  row: StepRow,
  id: string,
  now: string,
  fields: StepFields = {},
) {
  await db
    .insertInto('steps')
    .values({ ...row, nameLower: row.name.toLowerCase(), id, createdAt: now, updatedAt: now, ...fields })
    .execute();
}

export async function updateStep(db: Executor, id: string, fields: StepFields) {
  await db.updateTable('steps').set(fields).where('id', '=', id).execute();
}

/** Updates a step only if it is not shared (a shared one is edited through its own route). */
export async function updateOwnStep(db: Executor, id: string, fields: StepFields) {
  await db.updateTable('steps').set(fields).where('id', '=', id).where('shared', '=', 0).execute();
}

export async function isShared(db: Executor, id: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('steps').select(['shared']).where('id', '=', id).executeTakeFirst();
  return row && fromFlag(row.shared);
}

export async function deleteStep(db: Executor, id: string) {
  await db.deleteFrom('steps').where('id', '=', id).execute();
}

/** The links below a group, in position order. */
export async function linksOf(db: Executor, parentStepId: string) {
  return db
    .selectFrom('stepChildren')
    .selectAll()
    .where('parentStepId', '=', parentStepId)
    .orderBy('position')
    .execute();
}

export async function insertLinks(db: Executor, links: LinkRow[]) {
  if (links.length > 0) await db.insertInto('stepChildren').values(links).execute();
}

export async function setLink(db: Executor, linkId: string, position: number, childStepId: string) {
  await db.updateTable('stepChildren').set({ position, childStepId }).where('id', '=', linkId).execute();
}

export async function deleteLinks(db: Executor, linkIds: string[]) {
  if (linkIds.length > 0) await db.deleteFrom('stepChildren').where('id', 'in', linkIds).execute();
}

/** The groups linking a step as a child. */
export async function parentsOf(db: Executor, stepId: string) {
  return db.selectFrom('stepChildren').select('parentStepId').where('childStepId', '=', stepId).execute();
}

/** The canonical children of a group with their stored actions (to find an upload's owner). */
export async function childActions(db: Executor, groupId: string) {
  return db
    .selectFrom('stepChildren as c')
    .innerJoin('steps as s', 's.id', 'c.childStepId')
    .select(['s.id', 's.action'])
    .where('c.parentStepId', '=', groupId)
    .execute();
}

/**
 * The project's shared steps among `ids`. With `lock`, a write is about to reference them: on
 * PostgreSQL they are locked (`share`, or `update` for an edit of the group itself) in one
 * statement in id order, so a concurrent delete of the shared step waits or is seen.
 */
export async function existingSharedIds(
  db: Executor,
  projectId: string,
  ids: string[],
  lock?: 'share' | 'update',
): Promise<Set<string>> {
  const found = new Set<string>();
  const unique = [...new Set(ids)];
  const locking = lock !== undefined && onPostgres(db);
  for (const part of locking ? [unique] : chunk(unique, 500)) {
    if (part.length === 0) continue;
    let query = db
      .selectFrom('steps')
      .select('id')
      .where('projectId', '=', projectId)
      .where('shared', '=', 1)
      .where('id', 'in', part);
    if (locking) {
      query = query.orderBy('id');
      query = lock === 'update' ? query.forUpdate() : query.forShare();
    }
    for (const row of await query.execute()) found.add(row.id);
  }
  return found;
}
