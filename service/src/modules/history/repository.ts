import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';
import type { TestHistoryTables } from '../../adapters/db/migrations/0015_test_history.ts';
import type { Database } from '../../adapters/db/schema.ts';

export type TestResultRow = TestHistoryTables['testResults'];
export type QuarantineRow = TestHistoryTables['testQuarantines'];
type Executor = Db | Tx;

/** Filters of a test's history (a test of the caller's project); `branch` is a branch id or name. */
export interface HistoryFilter {
  testId: string;
  branch?: string;
  status?: string;
  since?: string;
}

/** Whether a branch filter names a branch by id (else by name). */
export const isUuid = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/*
 * Reads keyed by test filter on `testId` alone, never on `projectId` too: a test id belongs to
 * one project (the callers check which), and without a project term SQLite can only take the
 * (testId, createdAt) index. With one, and no ANALYZE statistics, it takes an index that leads
 * with projectId and reads every result of the project.
 */
function filtered(db: Executor, filter: HistoryFilter) {
  let query = db.selectFrom('testResults').where('testId', '=', filter.testId);
  if (filter.branch)
    query = isUuid(filter.branch)
      ? query.where('branchId', '=', filter.branch.toLowerCase())
      : query.where('branchName', '=', filter.branch);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.since) query = query.where('createdAt', '>=', filter.since);
  return query;
}

/** Rows of one ended run, written once (a second write of the same run adds nothing). */
export async function insertResults(db: Executor, rows: TestResultRow[]): Promise<void> {
  // 21 values a row: 200 rows stay under SQLite's bound-parameter limit.
  for (const part of chunk(rows, 200)) {
    if (part.length === 0) continue;
    await db
      .insertInto('testResults')
      .values(part)
      .onConflict((conflict) => conflict.columns(['runId', 'testId']).doNothing())
      .execute();
  }
}

/** One page of a test's results, newest first, and how many match. */
export async function historyPage(
  db: Executor,
  filter: HistoryFilter,
  page: { limit: number; offset: number },
) {
  const [rows, count] = await Promise.all([
    filtered(db, filter)
      .selectAll()
      .orderBy('createdAt', 'desc')
      .orderBy('runId', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    filtered(db, filter)
      .select((eb) => eb.fn.countAll<number | string>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** The latest `limit` results under the filter (the summary's window), newest first. */
export async function latestResults(db: Executor, filter: HistoryFilter, limit: number) {
  return filtered(db, filter)
    .select(['runId', 'status', 'duration', 'testRevisionId', 'commitSha', 'createdAt', 'stepDurations'])
    .orderBy('createdAt', 'desc')
    .orderBy('runId', 'desc')
    .limit(limit)
    .execute();
}

/** Where a base is: a Stepdeck branch, or a git ref the runs' metadata named. */
export type BaseOf = { branchId: string } | { ref: string };

/**
 * One statement of per-test reads, each a walk down the (testId, createdAt) index that stops at
 * its LIMIT. PostgreSQL: a LATERAL subquery per id of an array. SQLite (no LATERAL): a UNION ALL
 * of one subquery per test, 100 at a time (under its 500 terms). A window function over the
 * same tests would read and sort every result of each test instead.
 */
export async function perTest<Row>(
  db: Executor,
  testIds: readonly string[],
  read: (testId: string | RawBuilder<string>) => SelectQueryBuilder<Database, 'testResults', Row>,
): Promise<Row[]> {
  const unique = [...new Set(testIds)];
  if (unique.length === 0) return [];
  if (onPostgres(db)) {
    const each = read(sql<string>`ids.id`);
    const result =
      await sql<Row>`select one.* from unnest(${unique}::text[]) as ids(id) cross join lateral (${each}) as one`.execute(
        db,
      );
    return result.rows;
  }
  const out: Row[] = [];
  for (const part of chunk(unique, 100)) {
    const [first, ...rest] = part.map((testId) => db.selectFrom(read(testId).as('one')).selectAll());
    if (!first) continue;
    const union = rest.reduce((all, next) => all.unionAll(next), first);
    out.push(...((await union.execute()) as Row[]));
  }
  return out;
}

/** The latest `limit` results of each of these tests (any branch), newest first. */
export async function latestResultsOfTests(db: Executor, testIds: readonly string[], limit: number) {
  return perTest(db, testIds, (testId) =>
    db
      .selectFrom('testResults')
      .select(['runId', 'testId', 'status', 'duration', 'testRevisionId', 'commitSha', 'createdAt'])
      .where('testId', '=', testId)
      .orderBy('createdAt', 'desc')
      .limit(limit),
  );
}

/**
 * Each test's latest decided result on the base before `before` (excluding `runId`): with its
 * fingerprint, it says whether the base is failing the same way now.
 */
export async function latestOnBase(
  db: Executor,
  where: { testIds: readonly string[]; base: BaseOf; before: string; runId: string },
) {
  return perTest(db, where.testIds, (testId) => {
    const query = db
      .selectFrom('testResults')
      .select(['runId', 'testId', 'status', 'fingerprint', 'commitSha', 'createdAt'])
      .where('testId', '=', testId)
      .where('createdAt', '<=', where.before)
      .where('runId', '!=', where.runId)
      .where('status', '!=', 'skipped');
    return (
      'branchId' in where.base
        ? query.where('branchId', '=', where.base.branchId)
        : query.where('ref', '=', where.base.ref)
    )
      .orderBy('createdAt', 'desc')
      .limit(1);
  });
}

/** Quarantines of these tests in the project (expired ones included: the caller judges). */
export async function quarantinesOf(db: Executor, projectId: string, testIds: readonly string[]) {
  const out: QuarantineRow[] = [];
  for (const part of chunk([...new Set(testIds)], 500)) {
    if (part.length === 0) continue;
    out.push(
      ...(await db
        .selectFrom('testQuarantines')
        .selectAll()
        .where('projectId', '=', projectId)
        .where('testId', 'in', part)
        .execute()),
    );
  }
  return out;
}

/** Puts a test in quarantine, or replaces its reason, owner and expiry. */
export async function upsertQuarantine(db: Executor, row: QuarantineRow): Promise<void> {
  await db
    .insertInto('testQuarantines')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('testId').doUpdateSet({
        reason: row.reason,
        owner: row.owner,
        expiresAt: row.expiresAt,
        createdBy: row.createdBy,
        createdAt: row.createdAt,
      }),
    )
    .execute();
}

/** Releases a test from quarantine; whether it was in one. */
export async function deleteQuarantine(db: Executor, projectId: string, testId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('testQuarantines')
    .where('testId', '=', testId)
    .where('projectId', '=', projectId)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/**
 * Deletes results older than `before`, about `limit` at a time (oldest first; rows sharing
 * the last one's time go with it); how many went.
 */
export async function deleteResultsBefore(db: Executor, before: string, limit: number): Promise<number> {
  const last = await db
    .selectFrom('testResults')
    .select('createdAt')
    .where('createdAt', '<', before)
    .orderBy('createdAt')
    .limit(1)
    .offset(limit - 1)
    .executeTakeFirst();
  const deleted = await db
    .deleteFrom('testResults')
    .where('createdAt', last ? '<=' : '<', last?.createdAt ?? before)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
