import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import type { RunsTables } from '../../adapters/db/migrations/0003_runs.ts';

export type RunRow = RunsTables['runs'];
export type RunTestRow = RunsTables['runTests'];

/** A runner holds the run (claimed, then executing). */
export const claimedStatuses = ['queued', 'running'] as const;
/** Not ended yet: the one list every module uses (terminal ones are the contract's). */
export const activeStatuses = ['pending', ...claimedStatuses] as const;

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

/** Cancels the run if it is still active; false when it had already ended. */
export async function cancelActiveRun(db: Db | Tx, runId: string, now: string): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set({ status: 'cancelled', cancelledAt: now, completedAt: now })
    .where('id', '=', runId)
    .where('status', 'in', [...activeStatuses])
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
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

/** The names of these tests of a run, in the run's order. */
export async function testNamesOfRun(db: Db | Tx, runId: string, testIds: string[]) {
  return db
    .selectFrom('runTests')
    .select(['testName'])
    .where('runId', '=', runId)
    .where('testId', 'in', testIds)
    .orderBy('position')
    .execute();
}

/** The runner's heartbeat on a run it executes. */
export async function beatRun(db: Db | Tx, runId: string) {
  await db.updateTable('runs').set({ heartbeatAt: Date.now() }).where('id', '=', runId).execute();
}

/** A run's status alone (undefined when the run is gone). */
export async function runStatusOf(db: Db | Tx, runId: string) {
  return db.selectFrom('runs').select(['status']).where('id', '=', runId).executeTakeFirst();
}

/** The heartbeat of the runner that holds an unsplit run. */
export async function beatHeldRun(db: Db | Tx, runId: string, runnerId: string) {
  await db
    .updateTable('runs')
    .set({ heartbeatAt: Date.now() })
    .where('id', '=', runId)
    .where('runnerId', '=', runnerId)
    .execute();
}

/** A claimed (`queued`) run starts; false when it was no longer queued (cancelled meanwhile). */
export async function startQueuedRun(db: Db | Tx, runId: string, now: string): Promise<boolean> {
  const started = await db
    .updateTable('runs')
    .set({ status: 'running', startedAt: now, heartbeatAt: Date.now() })
    .where('id', '=', runId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(started.numUpdatedRows) === 1;
}

/** What a run's end writes on its row (stats and report as JSON text). */
export interface RunEnd {
  status: 'completed' | 'failed';
  stats: string;
  report: string;
  runnerError: string | null;
  duration: number;
  completedAt: string;
}

/** Ends a run still `running`; false when something else ended it first. */
export async function endRunningRun(db: Db | Tx, runId: string, end: RunEnd): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set(end)
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Ends a run whose status is one of `from`; false when it was in none of them. */
export async function endRunIn(db: Db | Tx, runId: string, from: string[], end: RunEnd): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set(end)
    .where('id', '=', runId)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** One test's outcome in a run. */
export async function recordRunTestResult(
  db: Db | Tx,
  runId: string,
  testId: string,
  outcome: { status: string; duration: number; errorMessage: string | null; errorLocation: string | null },
) {
  await db
    .updateTable('runTests')
    .set(outcome)
    .where('runId', '=', runId)
    .where('testId', '=', testId)
    .execute();
}

/** Gives a run claimed during shutdown back (`queued` → `pending`). */
export async function releaseRunClaim(db: Db | Tx, runId: string, runnerId: string): Promise<void> {
  await db
    .updateTable('runs')
    .set({ status: 'pending', queuedAt: null, runnerId: null, heartbeatAt: null })
    .where('id', '=', runId)
    .where('status', '=', 'queued')
    .where('runnerId', '=', runnerId)
    .execute();
}

/** The organization of a run that must exist (a claimed unit's run). */
export async function organizationOfRun(tx: Tx, runId: string) {
  return tx.selectFrom('runs').select(['organizationId']).where('id', '=', runId).executeTakeFirstOrThrow();
}

/** Up to 200 pending runs, oldest first (claimed under the dispatch lock). */
export async function oldestPendingRuns(tx: Tx) {
  return tx
    .selectFrom('runs')
    .select(['id', 'organizationId'])
    .where('status', '=', 'pending')
    .orderBy('createdAt')
    .limit(200)
    .execute();
}

/** A runner claims a pending run (`pending` → `queued`); whether it got it. */
export async function claimPendingRun(
  tx: Tx,
  runId: string,
  runnerId: string,
  now: string,
): Promise<boolean> {
  const claimed = await tx
    .updateTable('runs')
    .set({
      status: 'queued',
      queuedAt: now,
      runnerId,
      heartbeatAt: Date.now(),
    })
    .where('id', '=', runId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/**
 * Runs held by a runner (`queued`/`running`): all of them, or with `staleBefore` those whose
 * heartbeat is older and that are not split (a split run is judged by its batches, in
 * recoverBatches: it may wait for free slots).
 */
export async function claimedRunsToRecover(db: Db | Tx, staleBefore: number | undefined) {
  let query = db
    .selectFrom('runs')
    .select(['id'])
    .where('status', 'in', [...claimedStatuses]);
  if (staleBefore !== undefined)
    query = query
      .where('heartbeatAt', '<', staleBefore)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('runBatches').select('runBatches.runId').whereRef('runBatches.runId', '=', 'runs.id'),
          ),
        ),
      );
  return query.execute();
}
