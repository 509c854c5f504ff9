import type { Selectable } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import type { Database } from '../../adapters/db/schema.ts';

export type BaselineRow = Selectable<Database['visualBaselines']>;
export type ChangeRow = Selectable<Database['visualChanges']>;
type Executor = Db | Tx;

export interface BaselineKey {
  branchId: string;
  testId: string;
  stepId: string;
  browser: string;
  viewport: string;
}

/** The baselines of these branches for these tests (every step, browser and viewport). */
export async function baselinesOfBranches(
  db: Executor,
  branchIds: string[],
  testIds?: string[],
): Promise<BaselineRow[]> {
  let query = db.selectFrom('visualBaselines').selectAll().where('branchId', 'in', branchIds);
  if (testIds) {
    if (testIds.length === 0) return [];
    query = query.where('testId', 'in', testIds);
  }
  return query.orderBy('testId').orderBy('stepId').execute();
}

export async function findBaseline(db: Executor, organizationId: string, baselineId: string) {
  return db
    .selectFrom('visualBaselines')
    .selectAll()
    .where('id', '=', baselineId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

export async function findBaselineByKey(db: Executor, key: BaselineKey) {
  return db
    .selectFrom('visualBaselines')
    .selectAll()
    .where('branchId', '=', key.branchId)
    .where('testId', '=', key.testId)
    .where('stepId', '=', key.stepId)
    .where('browser', '=', key.browser)
    .where('viewport', '=', key.viewport)
    .executeTakeFirst();
}

/** Writes the branch's baseline for its key (replacing the one it had). */
export async function upsertBaseline(db: Executor, row: BaselineRow): Promise<void> {
  const existing = await findBaselineByKey(db, row);
  if (existing) {
    const { id: _id, ...rest } = row;
    await db.updateTable('visualBaselines').set(rest).where('id', '=', existing.id).execute();
  } else await db.insertInto('visualBaselines').values(row).execute();
}

export async function insertChanges(db: Executor, rows: ChangeRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('visualChanges').values(rows).execute();
}

export async function changesOfRun(
  db: Executor,
  organizationId: string,
  runId: string,
): Promise<ChangeRow[]> {
  return db
    .selectFrom('visualChanges')
    .selectAll()
    .where('runId', '=', runId)
    .where('organizationId', '=', organizationId)
    .orderBy('createdAt')
    .orderBy('testName')
    .orderBy('stepName')
    .execute();
}

export async function findChange(db: Executor, organizationId: string, changeId: string) {
  return db
    .selectFrom('visualChanges')
    .selectAll()
    .where('id', '=', changeId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

/** Records a decision on changes still pending; returns how many it decided. */
export async function decideChanges(
  db: Executor,
  ids: string[],
  decision: { decision: 'approved' | 'rejected'; decidedBy: string; decidedAt: string },
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('visualChanges')
    .set(decision)
    .where('id', 'in', ids)
    .where('decision', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
