import { runReport, runStats } from '@stepdeck/contract';
import { readJson, toJson } from '../../adapters/db/index.ts';
import type { AppContext, RunFinished } from '../../context.ts';
import { type ExecutionResult, projects } from './deps.ts';
import {
  endRunIn,
  endRunningRun,
  findRun,
  type RunRow,
  recordRunTestResult,
  runTests,
} from './repository.ts';

/**
 * How a run ends: its report (the spec's `report` and the step-level fields of issue 11) and
 * per-test rows written in one transaction, then `run.finished` emitted once.
 */

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
      })),
      stats: result.stats,
      runnerError: result.runnerError ?? null,
    },
  };
}

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
    for (const test of result.tests) {
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

/** Marks a run failed by its runner (crash, restart, missing browser); emits the event once. */
export async function failRun(
  ctx: AppContext,
  runId: string,
  message: string,
  from: string[],
): Promise<boolean> {
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
  const ended = await endRunIn(ctx.db, runId, from, {
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
    const project = await projects.findProject(ctx.db, run.organizationId, run.projectId);
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
    };
    ctx.events.emit('run.finished', event);
  } catch (error) {
    ctx.log.error({ err: error, runId }, 'could not emit run.finished');
  }
}
