import { sql } from 'kysely';
import { z } from 'zod';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { readJson, toJson } from '../../adapters/db/index.ts';
import type { RunsTables } from '../../adapters/db/migrations/0003_runs.ts';
import type { Database } from '../../adapters/db/schema.ts';
import { activeStatuses } from './queue/lifecycle.ts';

export type RunRow = Database['runs'];
export type RunTestRow = RunsTables['runTests'];

/** Pending runs an organization may have waiting before remote-run answers 429. */
export const backlogLimit = 50;

export async function insertRun(tx: Tx, run: RunRow, tests: Array<{ id: string; name: string }>) {
  await tx.insertInto('runs').values(run).execute();
  if (tests.length > 0) {
    await tx
      .insertInto('runTests')
      .values(
        tests.map((test, position) => ({
          runId: run.id,
          testId: test.id,
          testName: test.name,
          position,
          status: null,
          duration: null,
          errorMessage: null,
          errorLocation: null,
        })),
      )
      .execute();
  }
}

/** Serialises run creation and dispatch on PostgreSQL (SQLite transactions are already serial). */
export async function lockDispatch(tx: Tx, kind: 'sqlite' | 'postgres', name: string) {
  if (kind === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(tx);
}

export async function findActiveRunForTests(db: Db | Tx, testIds: string[]) {
  if (testIds.length === 0) return undefined;
  return db
    .selectFrom('runTests')
    .innerJoin('runs', 'runs.id', 'runTests.runId')
    .select(['runs.id', 'runTests.testId'])
    .where('runTests.testId', 'in', testIds)
    .where('runs.status', 'in', [...activeStatuses])
    .executeTakeFirst();
}

/** Latest API-triggered run of a mode (single: for one test; bulk: for the organization). */
export async function latestCooldownRun(
  db: Db | Tx,
  filter: { organizationId: string; mode: 'single' | 'bulk'; testId?: string },
) {
  let query = db
    .selectFrom('runs')
    .select(['createdAt'])
    .where('organizationId', '=', filter.organizationId)
    .where('mode', '=', filter.mode)
    .where('triggerType', '!=', 'schedule');
  if (filter.testId) query = query.where('targetId', '=', filter.testId);
  return query.orderBy('createdAt', 'desc').limit(1).executeTakeFirst();
}

export async function countRuns(db: Db | Tx, organizationId: string, statuses: string[]) {
  const row = await db
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organizationId', '=', organizationId)
    .where('status', 'in', statuses)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findRun(db: Db | Tx, runId: string) {
  return db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
}

/** Whether a run of this schedule has not ended yet. */
export async function hasActiveRunOfSchedule(db: Db, scheduleId: string): Promise<boolean> {
  const row = await db
    .selectFrom('runs')
    .select('id')
    .where('scheduleId', '=', scheduleId)
    .where('status', 'in', [...activeStatuses])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A run of this schedule created at or after `sinceIso` (a crashed firing may have made one). */
export async function runOfScheduleCreatedSince(db: Db, scheduleId: string, sinceIso: string) {
  return db
    .selectFrom('runs')
    .select('id')
    .where('scheduleId', '=', scheduleId)
    .where('createdAt', '>=', sinceIso)
    .orderBy('createdAt', 'asc')
    .limit(1)
    .executeTakeFirst();
}

/** A run's id and organization (whose callers may read its artifacts). */
export async function findRunOwner(db: Db | Tx, runId: string) {
  return db.selectFrom('runs').select(['id', 'organizationId']).where('id', '=', runId).executeTakeFirst();
}

export async function runTests(db: Db | Tx, runId: string) {
  return db.selectFrom('runTests').selectAll().where('runId', '=', runId).orderBy('position').execute();
}

/** Runs waiting for a runner, all organizations (the pending-runs gauge). */
export async function countPending(db: Db): Promise<number> {
  const row = await db
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Which runs a list, a latest-run lookup or the statistics look at (one branch of a project). */
export interface RunFilter {
  projectId: string;
  branchId: string;
  scheduleId?: string | undefined;
  /** Runs targeting one of these tests or including one of them. */
  testIds?: string[] | undefined;
  status?: string | undefined;
  /** Case-insensitive substring of the run's name. */
  nameContains?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
}

function runsMatching(db: Db, filter: RunFilter) {
  let query = db
    .selectFrom('runs')
    .where('runs.projectId', '=', filter.projectId)
    .where('runs.branchId', '=', filter.branchId);
  if (filter.scheduleId) query = query.where('runs.scheduleId', '=', filter.scheduleId);
  const testIds = filter.testIds;
  if (testIds)
    query = query.where((eb) =>
      eb.or([
        eb('runs.targetId', 'in', testIds),
        eb.exists(
          eb
            .selectFrom('runTests')
            .select('runTests.runId')
            .whereRef('runTests.runId', '=', 'runs.id')
            .where('runTests.testId', 'in', testIds),
        ),
      ]),
    );
  if (filter.status) query = query.where('runs.status', '=', filter.status);
  const name = filter.nameContains;
  if (name) query = query.where((eb) => eb(eb.fn('lower', ['runs.name']), 'like', `%${name.toLowerCase()}%`));
  if (filter.createdFrom) query = query.where('runs.createdAt', '>=', filter.createdFrom);
  if (filter.createdTo) query = query.where('runs.createdAt', '<=', filter.createdTo);
  return query;
}

/** One page of the matching runs, newest first, and how many match in all. */
export async function pageOfRuns(db: Db, filter: RunFilter, page: { limit: number; offset: number }) {
  const base = runsMatching(db, filter);
  const total = Number(
    (await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count,
  );
  const rows = await base
    .selectAll('runs')
    .orderBy('runs.createdAt', 'desc')
    .orderBy('runs.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { total, rows };
}

export async function latestRunMatching(db: Db, filter: RunFilter) {
  return runsMatching(db, filter)
    .select(['runs.id', 'runs.name', 'runs.status', 'runs.createdAt'])
    .orderBy('runs.createdAt', 'desc')
    .orderBy('runs.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Status, duration and creation time of every matching run (for the statistics). */
export async function outcomesOfRuns(db: Db, filter: RunFilter) {
  return runsMatching(db, filter).select(['runs.status', 'runs.duration', 'runs.createdAt']).execute();
}

/**
 * Durations these tests took on the branch in ended runs, newest first (at most 20 rows a test
 * on average: the planner keeps each test's last three).
 */
export async function recentTestDurations(db: Db, branchId: string, testIds: string[]) {
  return db
    .selectFrom('runTests')
    .innerJoin('runs', 'runs.id', 'runTests.runId')
    .select(['runTests.testId', 'runTests.duration'])
    .where('runs.branchId', '=', branchId)
    .where('runs.status', 'in', ['completed', 'failed'])
    .where('runTests.testId', 'in', testIds)
    .where('runTests.duration', 'is not', null)
    .where('runTests.status', 'in', ['passed', 'failed', 'flaky', 'timedOut'])
    .orderBy('runs.createdAt', 'desc')
    .limit(testIds.length * 20)
    .execute();
}

/** A run's status alone (undefined when the run is gone). */
const runMetadata = z.record(z.string(), z.unknown());

/**
 * Adds the planner's decision to the run's metadata (`metadata.plan`: how many batches and
 * why), which the run detail returns. Read and written in one transaction: the trigger wrote
 * the rest of the metadata, and nothing else writes it while the run executes.
 */
export async function recordRunPlan(db: Db, runId: string, plan: { batches: number; reason: string }) {
  await db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('runs').select('metadata').where('id', '=', runId).executeTakeFirst();
    if (!row) return;
    const metadata = readJson(runMetadata, row.metadata, {}, `runs ${runId}/metadata`);
    await tx
      .updateTable('runs')
      .set({ metadata: toJson({ ...metadata, plan }) })
      .where('id', '=', runId)
      .execute();
  });
}

export async function runStatusOf(db: Db | Tx, runId: string) {
  return db.selectFrom('runs').select(['status']).where('id', '=', runId).executeTakeFirst();
}
