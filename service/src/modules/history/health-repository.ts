import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import type { TestHealthTables } from '../../adapters/db/migrations/0022_test_health.ts';
import { perTest } from './repository.ts';

export type TestHealthRow = TestHealthTables['testHealth'];
export type QuarantineEventRow = TestHealthTables['testQuarantineEvents'];
type Executor = Db | Tx;

/** The latest `limit` results of each of these tests on one branch, newest first. */
export async function latestOnBranch(
  db: Executor,
  testIds: readonly string[],
  branchId: string,
  limit: number,
) {
  return perTest(db, testIds, (testId) =>
    db
      .selectFrom('testResults')
      .select(['runId', 'testId', 'status', 'duration', 'testRevisionId', 'commitSha', 'createdAt'])
      .where('testId', '=', testId)
      .where('branchId', '=', branchId)
      .orderBy('createdAt', 'desc')
      .limit(limit),
  );
}

/** Writes each test's standing on its branch (one row per test and branch, replaced). */
export async function upsertHealth(db: Executor, rows: readonly TestHealthRow[]): Promise<void> {
  // 17 values a row: 50 rows stay well under SQLite's bound-parameter limit.
  for (const part of chunk(rows, 50)) {
    if (part.length === 0) continue;
    await db
      .insertInto('testHealth')
      .values(part)
      .onConflict((conflict) =>
        conflict.columns(['testId', 'branchId']).doUpdateSet((eb) => ({
          branchName: eb.ref('excluded.branchName'),
          testName: eb.ref('excluded.testName'),
          lastRunId: eb.ref('excluded.lastRunId'),
          lastStatus: eb.ref('excluded.lastStatus'),
          lastResultAt: eb.ref('excluded.lastResultAt'),
          failingSinceRunId: eb.ref('excluded.failingSinceRunId'),
          failingSinceAt: eb.ref('excluded.failingSinceAt'),
          failingSinceCommit: eb.ref('excluded.failingSinceCommit'),
          passRate: eb.ref('excluded.passRate'),
          flakeRate: eb.ref('excluded.flakeRate'),
          sampleSize: eb.ref('excluded.sampleSize'),
          updatedAt: eb.ref('excluded.updatedAt'),
        })),
      )
      .execute();
  }
}

const onBranch = (db: Executor, projectId: string, branchId: string) =>
  db.selectFrom('testHealth').where('projectId', '=', projectId).where('branchId', '=', branchId);

/** A project's flaky tests (highest flake rate first) and failing ones (latest breakage first). */
export async function healthLists(db: Executor, projectId: string, branchId: string, limit: number) {
  const [flaky, failing] = await Promise.all([
    onBranch(db, projectId, branchId)
      .selectAll()
      .where('flakeRate', '>', 0)
      .orderBy('flakeRate', 'desc')
      .orderBy('lastResultAt', 'desc')
      .limit(limit)
      .execute(),
    onBranch(db, projectId, branchId)
      .selectAll()
      .where('failingSinceRunId', 'is not', null)
      .orderBy('failingSinceAt', 'desc')
      .orderBy('testId')
      .limit(limit)
      .execute(),
  ]);
  return { flaky, failing };
}

/** The latest name of each of these tests (any branch). */
export async function testNames(db: Executor, testIds: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, { name: string; at: string }>();
  for (const part of chunk([...new Set(testIds)], 500)) {
    if (part.length === 0) continue;
    const rows = await db
      .selectFrom('testHealth')
      .select(['testId', 'testName', 'lastResultAt'])
      .where('testId', 'in', part)
      .execute();
    for (const row of rows) {
      const known = names.get(row.testId);
      if (!known || known.at < row.lastResultAt)
        names.set(row.testId, { name: row.testName, at: row.lastResultAt });
    }
  }
  return new Map([...names].map(([testId, { name }]) => [testId, name]));
}

/** The statuses of a test's results since `since` (any branch), newest first, at most `limit`. */
export async function statusesSince(db: Executor, testId: string, since: string, limit: number) {
  const rows = await db
    .selectFrom('testResults')
    .select('status')
    .where('testId', '=', testId)
    .where('createdAt', '>=', since)
    .orderBy('createdAt', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.status);
}

/** The project's quarantines (expired ones included: the caller judges). */
export async function quarantinesOfProject(db: Executor, projectId: string) {
  return db.selectFrom('testQuarantines').selectAll().where('projectId', '=', projectId).execute();
}

export async function insertQuarantineEvent(db: Executor, row: QuarantineEventRow): Promise<void> {
  await db.insertInto('testQuarantineEvents').values(row).execute();
}

/** The project's latest quarantine changes, newest first. */
export async function latestQuarantineEvents(db: Executor, projectId: string, limit: number) {
  return db
    .selectFrom('testQuarantineEvents')
    .selectAll()
    .where('projectId', '=', projectId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
