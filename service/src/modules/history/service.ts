import type {
  QuarantineBody,
  RunTriage,
  RunTriageItem,
  TestHistoryEntry,
  TestHistoryQuery,
  TestHistoryResponse,
  TestQuarantine,
} from '@stepdeck/contract';
import { z } from 'zod';
import { readJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { branchNames, findProject } from '../accounts/public.ts';
import { type RunOutcome, runOutcome } from '../runs/public.ts';
import { findWorkingMany, testIdsInProject } from '../tests/public.ts';
import { TestHealthService } from './health-service.ts';
import { fingerprintOfResult, historyStatusOf, normalizeRef, resultRows, testNameOf } from './recording.ts';
import {
  type BaseOf,
  deleteQuarantine,
  deleteResultsBefore,
  historyPage,
  insertResults,
  latestOnBase,
  latestResults,
  latestResultsOfTests,
  type QuarantineRow,
  quarantinesOf,
  type TestResultRow,
  upsertQuarantine,
} from './repository.ts';
import { summarize } from './summary.ts';
import { durationTrend, stepShifts } from './trends.ts';

/** The caller's organization and project (from the key or session and `x-project-id`). */
export interface HistoryScope {
  organizationId: string;
  projectId: string;
}

/** How many of a test's latest results (any branch) decide whether a failure is `flaky`. */
export const flakeWindow = 20;
/** Results deleted per statement by the retention sweep (short write transactions). */
const pruneBatch = 5000;

const stepDurations = z.record(z.string(), z.number());

export const presentQuarantine = (row: QuarantineRow): TestQuarantine => ({
  testId: row.testId,
  reason: row.reason,
  owner: row.owner,
  expiresAt: row.expiresAt,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
});

function presentResult(row: TestResultRow): TestHistoryEntry {
  return {
    runId: row.runId,
    testId: row.testId,
    testRevisionId: row.testRevisionId,
    branchId: row.branchId,
    branchName: row.branchName,
    trigger: row.triggerType,
    status: row.status as TestHistoryEntry['status'],
    duration: row.duration,
    attempts: row.attempts,
    failedStepId: row.failedStepId,
    fingerprint: row.fingerprint,
    errorMessage: row.errorMessage,
    stepDurations: Object.entries(
      readJson(stepDurations, row.stepDurations, {}, `testResults ${row.runId}/stepDurations`),
    ).map(([stepId, duration]) => ({ stepId, duration: Math.round(duration) })),
    commitSha: row.commitSha,
    ref: row.ref,
    pullRequest: row.pullRequest,
    label: row.label,
    createdAt: row.createdAt,
  };
}

export class HistoryService {
  private readonly ctx: AppContext;
  /** Where each test stands per branch, and the quarantine rules that read it. */
  readonly health: TestHealthService;

  constructor(options: { ctx: AppContext }) {
    this.ctx = options.ctx;
    this.health = new TestHealthService(options);
  }

  /**
   * Records an ended run's results (one row per test of its report). Called after the run's
   * end committed; a run recorded twice keeps its first rows.
   */
  async record(runId: string): Promise<number> {
    const run = await runOutcome(this.ctx.db, runId);
    if (!run?.report || (run.status !== 'completed' && run.status !== 'failed')) return 0;
    // A data-driven test has one result per row: one test id, one revision.
    const testIds = [...new Set(run.report.runTypeInfo.testResults.map((test) => test.testId))];
    const revisions = new Map<string, string>();
    if (run.testRevisionId && testIds.length === 1 && testIds[0])
      revisions.set(testIds[0], run.testRevisionId);
    else
      for (const working of await findWorkingMany(this.ctx.db, run.projectId, run.branchId, testIds))
        revisions.set(working.id, working.revisionId);
    const rows = resultRows(run, revisions);
    await insertResults(this.ctx.db, rows);
    const names = new Map(run.report.runTypeInfo.testResults.map((test) => [test.testId, testNameOf(test)]));
    await this.health.afterRecord(rows, names);
    return rows.length;
  }

  /** A test's results, newest first, with the summary of the latest `window` and its quarantine. */
  async history(scope: HistoryScope, testId: string, query: TestHistoryQuery): Promise<TestHistoryResponse> {
    await this.requireTest(scope, testId);
    const filter = {
      testId,
      branch: query.branch,
      status: query.status,
      since: query.since,
    };
    const [page, window, quarantines] = await Promise.all([
      historyPage(this.ctx.db, filter, { limit: query.limit, offset: query.page * query.limit }),
      latestResults(this.ctx.db, { ...filter, status: undefined }, query.window),
      quarantinesOf(this.ctx.db, scope.projectId, [testId]),
    ]);
    const totalPages = Math.ceil(page.total / query.limit);
    return {
      data: page.rows.map(presentResult),
      pagination: {
        page: query.page,
        limit: query.limit,
        total: page.total,
        totalPages,
        hasMore: query.page + 1 < totalPages,
      },
      summary: { ...summarize(window, query.window), ...this.trends(window) },
      quarantine: this.active(quarantines)[0] ?? null,
    };
  }

  /**
   * Each failure of a run, classed: `quarantined` (the test is in quarantine), `flaky` (its
   * latest results in other runs show flakiness), `known` (the base's latest result of the
   * test failed with the same fingerprint), else `new`. The base is the pull request's base
   * ref when the run's metadata names one, else the project's default branch.
   */
  async triage(scope: HistoryScope, runId: string): Promise<RunTriage> {
    const run = await runOutcome(this.ctx.db, runId);
    if (!run || run.projectId !== scope.projectId || run.organizationId !== scope.organizationId)
      throw appError('RUN_NOT_FOUND');
    const { base, baseName } = await this.baseOf(run);
    const failing = (run.report?.runTypeInfo.testResults ?? []).filter(
      (test) => historyStatusOf(test) === 'failed',
    );
    const quarantined = new Map(
      this.active(
        await quarantinesOf(
          this.ctx.db,
          run.projectId,
          failing.map((test) => test.testId),
        ),
      ).map((quarantine) => [quarantine.testId, quarantine]),
    );
    const before = run.completedAt ?? this.ctx.clock.now().toISOString();
    const testIds = failing.map((test) => test.testId);
    const [recent, onBase] = await Promise.all([
      latestResultsOfTests(this.ctx.db, testIds, flakeWindow + 1),
      base ? latestOnBase(this.ctx.db, { testIds, base, before, runId: run.id }) : Promise.resolve([]),
    ]);
    const othersOf = new Map<string, typeof recent>();
    for (const result of recent) {
      if (result.runId === run.id) continue;
      const list = othersOf.get(result.testId) ?? [];
      if (list.length < flakeWindow) list.push(result);
      othersOf.set(result.testId, list);
    }
    const baseOf = new Map(onBase.map((result) => [result.testId, result]));
    const failures = failing.map((test): RunTriageItem => {
      const fingerprint = fingerprintOfResult(test);
      const others = othersOf.get(test.testId) ?? [];
      const flakeRate = others.length ? summarize(others, flakeWindow).flakeRate : null;
      const latestBase = baseOf.get(test.testId);
      const known = latestBase?.status === 'failed' && latestBase.fingerprint === fingerprint;
      const quarantine = quarantined.get(test.testId) ?? null;
      return {
        testId: test.testId,
        name: test.name,
        status: test.status,
        triage: quarantine ? 'quarantined' : (flakeRate ?? 0) > 0 ? 'flaky' : known ? 'known' : 'new',
        fingerprint,
        knownSince:
          known && latestBase
            ? { runId: latestBase.runId, createdAt: latestBase.createdAt, commitSha: latestBase.commitSha }
            : null,
        flakeRate,
        quarantine,
      };
    });
    const counts = { new: 0, known: 0, flaky: 0, quarantined: 0 };
    for (const failure of failures) counts[failure.triage]++;
    return { runId: run.id, baseBranch: baseName, failures, counts };
  }

  async quarantine(
    scope: HistoryScope,
    testId: string,
    body: QuarantineBody,
    createdBy: string,
  ): Promise<TestQuarantine> {
    await this.requireTest(scope, testId);
    const now = this.ctx.clock.now();
    const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= now.getTime()) throw appError('QUARANTINE_EXPIRY_PAST');
    const row: QuarantineRow = {
      testId,
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      reason: body.reason,
      owner: body.owner ?? null,
      expiresAt: expiresAt?.toISOString() ?? null,
      createdBy,
      createdAt: now.toISOString(),
    };
    await upsertQuarantine(this.ctx.db, row);
    await this.health.recordManual(scope, {
      testId,
      kind: 'quarantined',
      actor: createdBy,
      reason: body.reason,
    });
    return presentQuarantine(row);
  }

  async release(scope: HistoryScope, testId: string, actor: string): Promise<void> {
    await this.requireTest(scope, testId);
    if (!(await deleteQuarantine(this.ctx.db, scope.projectId, testId)))
      throw appError('QUARANTINE_NOT_FOUND');
    await this.health.recordManual(scope, { testId, kind: 'released', actor, reason: 'released by hand' });
  }

  /** Deletes results older than the retention, in short batches; how many went. */
  async prune(retentionDays: number): Promise<number> {
    const before = new Date(this.ctx.clock.now().getTime() - retentionDays * 86_400_000).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await deleteResultsBefore(this.ctx.db, before, pruneBatch);
      total += deleted;
      if (deleted < pruneBatch) return total;
    }
  }

  /** How the test's duration and its steps' durations moved within the window. */
  private trends(
    window: ReadonlyArray<
      Pick<TestResultRow, 'runId' | 'status' | 'duration' | 'createdAt' | 'stepDurations'>
    >,
  ) {
    const inputs = window.map((row) => ({
      ...row,
      stepDurations: Object.entries(
        readJson(stepDurations, row.stepDurations, {}, `testResults ${row.runId}/stepDurations`),
      ),
    }));
    return { durationTrend: durationTrend(inputs), stepShifts: stepShifts(inputs) };
  }

  private active(rows: QuarantineRow[]): TestQuarantine[] {
    const now = this.ctx.clock.now().toISOString();
    return rows.filter((row) => row.expiresAt === null || row.expiresAt > now).map(presentQuarantine);
  }

  private async requireTest(scope: HistoryScope, testId: string): Promise<void> {
    const found = await testIdsInProject(this.ctx.db, scope.projectId, [testId]);
    if (!found.has(testId)) throw appError('TEST_NOT_FOUND');
  }

  private async baseOf(run: RunOutcome): Promise<{ base: BaseOf | undefined; baseName: string | null }> {
    const baseRef = normalizeRef(run.source.baseRef);
    if (baseRef) return { base: { ref: baseRef }, baseName: baseRef };
    const project = await findProject(this.ctx.db, run.organizationId, run.projectId);
    if (!project?.defaultBranchId) return { base: undefined, baseName: null };
    const names = await branchNames(this.ctx.db, [project.defaultBranchId]);
    return {
      base: { branchId: project.defaultBranchId },
      baseName: names.get(project.defaultBranchId) ?? null,
    };
  }
}
