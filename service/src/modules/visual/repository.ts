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

/** A baseline by id: the one in use, or one a newer approval replaced while it is kept. */
export async function findBaseline(db: Executor, organizationId: string, baselineId: string) {
  const current = await db
    .selectFrom('visualBaselines')
    .selectAll()
    .where('id', '=', baselineId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return (
    current ??
    (await db
      .selectFrom('visualBaselineHistory')
      .select(['id', 'blobKey'])
      .where('id', '=', baselineId)
      .where('organizationId', '=', organizationId)
      .executeTakeFirst())
  );
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

/**
 * Makes `row` the branch's baseline for its key. The one it replaces is kept as superseded,
 * with the newest `keep` superseded ones of the key; the older ones' rows go, and their blob
 * keys are returned for the caller to delete once this commits.
 */
export async function replaceBaseline(
  db: Executor,
  row: BaselineRow,
  supersededAt: string,
  keep: number,
): Promise<string[]> {
  const previous = await findBaselineByKey(db, row);
  if (previous) {
    await db.deleteFrom('visualBaselines').where('id', '=', previous.id).execute();
    await db
      .insertInto('visualBaselineHistory')
      .values({ ...previous, bytes: Number(previous.bytes), supersededAt })
      .execute();
  }
  await db.insertInto('visualBaselines').values(row).execute();
  const superseded = await db
    .selectFrom('visualBaselineHistory')
    .select(['id', 'blobKey'])
    .where('branchId', '=', row.branchId)
    .where('testId', '=', row.testId)
    .where('stepId', '=', row.stepId)
    .where('browser', '=', row.browser)
    .where('viewport', '=', row.viewport)
    .orderBy('supersededAt', 'desc')
    .orderBy('approvedAt', 'desc')
    .execute();
  const dropped = superseded.slice(keep);
  if (dropped.length > 0)
    await db
      .deleteFrom('visualBaselineHistory')
      .where(
        'id',
        'in',
        dropped.map((entry) => entry.id),
      )
      .execute();
  return dropped.map((entry) => entry.blobKey);
}

/** Bytes of the organization's baselines, those in use and the superseded ones kept. */
export async function storedBaselineBytes(db: Executor, organizationId: string): Promise<number> {
  const [current, superseded] = await Promise.all([
    db
      .selectFrom('visualBaselines')
      .select((eb) => eb.fn.sum<number | string | null>('bytes').as('bytes'))
      .where('organizationId', '=', organizationId)
      .executeTakeFirst(),
    db
      .selectFrom('visualBaselineHistory')
      .select((eb) => eb.fn.sum<number | string | null>('bytes').as('bytes'))
      .where('organizationId', '=', organizationId)
      .executeTakeFirst(),
  ]);
  return Number(current?.bytes ?? 0) + Number(superseded?.bytes ?? 0);
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
