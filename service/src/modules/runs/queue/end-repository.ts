import { leftOutTest, runReport, runStats } from '@stepdeck/contract';
import { z } from 'zod';
import type { Db, Tx } from '../../../adapters/db/index.ts';
import { readJson, toJson } from '../../../adapters/db/index.ts';
import type { AppContext, RunFinished } from '../../../context.ts';
import type { ExecutionResult } from '../../../runner/executor.ts';
import { findProject } from '../../accounts/public.ts';
import type { BatchResult } from '../batches-repository.ts';
import { findRun, type RunRow, runTests } from '../repository.ts';
import { worstPerTest } from '../worst-result.ts';
import { runLifecycle, unitLifecycle } from './lifecycle.ts';

/**
 * End: a run's outcome is written (`running` → `completed`/`failed`: its report, stats and
 * per-test rows, the next runs' duration history), or its runner fails it (`queued`/`running`
 * → `failed`, every test skipped); then `run.finished` is emitted, once. A unit of a split run
 * ends `done` (its result kept for the merge) or `cancelled`.
 *
 * Locking. Each end is one conditional UPDATE guarded by the states the transition starts
 * from (and, for a unit, by its holder), outside the dispatch lock. What competes for the same
 * row (the run's holder ending it, a cancel, recovery failing it for a dead holder, a shutdown
 * past its grace) is each such an UPDATE: on PostgreSQL the row lock orders them and the later
 * one re-checks the status under READ COMMITTED; on SQLite they run one after another on the
 * one connection. The first wins; the others count no row and do nothing, so a run ends once,
 * `run.finished` is emitted once (only by the winner), and a cancelled run is never reported
 * as completed. An outcome and its per-test rows commit together.
 */

/** What a run's end writes on its row (stats and report as JSON text). */
interface RunEnd {
  status: 'completed' | 'failed';
  stats: string;
  report: string;
  runnerError: string | null;
  duration: number;
  completedAt: string;
}

/** The run's `report` as the spec shapes it, with each test's steps, failed step and expectation. */
function buildReport(
  run: RunRow,
  status: 'completed' | 'failed',
  result: ExecutionResult,
  completedAt: string,
) {
  return {
    status,
    testName: run.testName,
    runName: run.name,
    runId: run.id,
    duration: Math.round(result.durationMs),
    completedAt,
    branchId: run.branchId,
    branchName: run.branchName,
    scheduleName: run.scheduleName,
    runTypeInfo: {
      type: run.targetType,
      name: run.targetName,
      testResults: result.tests.map((test) => ({
        testId: test.testId,
        name: test.name,
        status: test.status,
        duration: Math.round(test.durationMs),
        errorMessage: test.errorMessage,
        errorLocation: test.errorLocation,
        attempts: test.attempts,
        failedStep: test.failedStep,
        expected: test.expected,
        received: test.received,
        errorDetail: test.errorDetail,
        flaky: test.flaky,
        steps: test.steps,
        ...(test.locatorSuggestions ? { locatorSuggestions: test.locatorSuggestions } : {}),
        ...(test.healed?.length ? { healed: test.healed } : {}),
        ...(test.vitals?.length ? { vitals: test.vitals } : {}),
        ...(test.dataRow ? { dataRow: test.dataRow } : {}),
      })),
      stats: result.stats,
      runnerError: result.runnerError ?? null,
    },
    visualChanges: result.tests.flatMap((test) =>
      (test.visual ?? []).flatMap((check) =>
        check.status === 'passed'
          ? []
          : [
              {
                testId: test.testId,
                testName: test.name,
                stepId: check.stepId,
                status: check.status,
                diffPixels: check.diffPixels,
                ratio: check.ratio,
              },
            ],
      ),
    ),
  };
}

/** A run's outcome: its report and per-test rows in one transaction, then `run.finished` once. */
export async function finishRun(ctx: AppContext, run: RunRow, result: ExecutionResult): Promise<void> {
  const status = result.status === 'passed' ? 'completed' : 'failed';
  const completedAt = ctx.clock.now().toISOString();
  const report = buildReport(run, status, result, completedAt);
  const finished = await ctx.db.transaction().execute(async (tx) => {
    const ended = await endRunningRun(tx, run.id, {
      status,
      stats: toJson(result.stats),
      report: toJson(report),
      runnerError: result.runnerError ?? null,
      duration: Math.round(result.durationMs),
      completedAt,
    });
    if (!ended) return false;
    for (const test of worstPerTest(result.tests)) {
      await recordRunTestResult(tx, run.id, test.testId, {
        status: test.status,
        duration: Math.round(test.durationMs),
        errorMessage: test.errorMessage,
        errorLocation: test.errorLocation,
      });
    }
    return true;
  });
  if (finished) await emitFinished(ctx, run.id);
}

/**
 * Fails a run its runner could not finish (crash, restart, missing browser, shutdown), every
 * test skipped; emits the event once. False when it was no longer held (ended meanwhile).
 */
export async function failRun(ctx: AppContext, runId: string, message: string): Promise<boolean> {
  const run = await findRun(ctx.db, runId);
  if (!run) return false;
  const completedAt = ctx.clock.now().toISOString();
  const members = await runTests(ctx.db, runId);
  const stats = { passed: 0, failed: 0, skipped: members.length, total: members.length };
  const duration = run.startedAt ? Math.max(0, Date.parse(completedAt) - Date.parse(run.startedAt)) : 0;
  const result: ExecutionResult = {
    status: 'runnerError',
    runnerError: message,
    durationMs: duration,
    stats,
    tests: members.map((member) => ({
      testId: member.testId,
      name: member.testName,
      status: 'skipped',
      durationMs: 0,
      errorMessage: null,
      errorLocation: null,
      attempts: 0,
      project: '',
      artifacts: [],
      failedStep: null,
      expected: null,
      received: null,
      errorDetail: null,
      flaky: false,
      steps: [],
    })),
    jsonReportPath: '',
    htmlReportDir: '',
    log: '',
  };
  const ended = await failHeldRun(ctx.db, runId, {
    status: 'failed',
    stats: toJson(stats),
    report: toJson(buildReport(run, 'failed', result, completedAt)),
    runnerError: message,
    duration,
    completedAt,
  });
  if (!ended) return false;
  await emitFinished(ctx, runId);
  return true;
}

async function emitFinished(ctx: AppContext, runId: string): Promise<void> {
  try {
    const run = await findRun(ctx.db, runId);
    if (!run || (run.status !== 'completed' && run.status !== 'failed')) return;
    const project = await findProject(ctx.db, run.organizationId, run.projectId);
    const report = readJson(runReport.nullable(), run.report, null, `runs ${run.id}/report`);
    const event: RunFinished = {
      organizationId: run.organizationId,
      runId: run.id,
      name: run.name,
      status: run.status,
      startedAt: run.startedAt,
      finishedAt: run.completedAt ?? ctx.clock.now().toISOString(),
      durationMs: run.duration ?? 0,
      trigger:
        run.triggerType === 'schedule'
          ? { type: 'schedule', schedule: run.triggerName }
          : run.triggerType === 'manual'
            ? { type: 'manual', email: run.triggerName }
            : { type: 'apiKey', name: run.triggerName },
      project: { id: run.projectId, name: project?.name ?? '' },
      branch: { id: run.branchId, name: run.branchName },
      target: {
        type: run.targetType as RunFinished['target']['type'],
        id: run.targetId,
        name: run.targetName,
      },
      ...(run.environmentName ? { environment: run.environmentName } : {}),
      stats: readJson(runStats.nullable(), run.stats, null, `runs ${run.id}/stats`) ?? {
        passed: 0,
        failed: 0,
        skipped: 0,
        total: 0,
      },
      tests: (report?.runTypeInfo.testResults ?? []).map((test) => ({
        name: test.name,
        status: test.status,
        durationMs: test.duration,
        errorMessage: test.status === 'passed' ? null : test.errorMessage,
        errorLocation: test.status === 'passed' ? null : test.errorLocation,
      })),
      visualChanges: report?.visualChanges ?? [],
      scheduleId: run.scheduleId ?? null,
      ...leftOutOf(run.metadata),
    };
    ctx.events.emit('run.finished', event);
  } catch (error) {
    ctx.log.error({ err: error, runId }, 'could not emit run.finished');
  }
}

const recordedLeftOut = z.object({
  leftOut: z.object({ count: z.number().int(), tests: z.array(leftOutTest) }),
});

/** The left-out tests the trigger recorded in the run's metadata, when it left any out. */
function leftOutOf(metadata: string | null): Pick<RunFinished, 'leftOut'> {
  if (!metadata) return {};
  try {
    const parsed = recordedLeftOut.safeParse(JSON.parse(metadata));
    return parsed.success ? { leftOut: parsed.data.leftOut } : {};
  } catch {
    return {};
  }
}

/** Ends a run still `running`; false when something else ended it first. */
async function endRunningRun(db: Db | Tx, runId: string, end: RunEnd): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set({ ...end, status: runLifecycle.to('end', end.status) })
    .where('id', '=', runId)
    .where('status', 'in', runLifecycle.from('end'))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Fails a run still held by a runner; false when it had ended. */
async function failHeldRun(db: Db | Tx, runId: string, end: RunEnd & { status: 'failed' }): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set({ ...end, status: runLifecycle.to('fail', end.status) })
    .where('id', '=', runId)
    .where('status', 'in', runLifecycle.from('fail'))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** One test's outcome in a run. */
async function recordRunTestResult(
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

/** Ends a unit held by this runner (`done` with its result, or `cancelled`); whether it still held it. */
export async function endUnit(
  db: Db,
  unit: { runId: string; position: number; runnerId: string },
  status: 'done' | 'cancelled',
  completedAt: string,
  result?: BatchResult,
): Promise<boolean> {
  const updated = await db
    .updateTable('runBatches')
    .set({ status: unitLifecycle.to('end', status), completedAt, result: result ? toJson(result) : null })
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('runnerId', '=', unit.runnerId)
    .where('status', 'in', unitLifecycle.from('end'))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
