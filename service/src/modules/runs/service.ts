import {
  jsonObject,
  type RunArtifact,
  type RunStatistics,
  runReport,
  runStats,
  type TestRun,
  type TestRunDetail,
  type TestRunListQuery,
} from '@stepdeck/contract';
import { readJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { findBranch } from '../accounts/public.ts';
import { expandRunTargets } from '../tests/public.ts';
import { RunCancelledError } from './errors.ts';
import { cancelActiveRun } from './queue/cancel-repository.ts';
import { activeStatuses } from './queue/lifecycle.ts';
import { renderReportHtml } from './report-html.ts';
import {
  findRun,
  latestRunMatching,
  outcomesOfRuns,
  pageOfRuns,
  type RunFilter,
  type RunRow,
  runTests,
} from './repository.ts';
import { runtimeOf } from './runtime.ts';

export const artifactUrlSeconds = 3600;

interface Scope {
  organizationId: string;
  projectId: string;
  branchId: string;
}

export function toListItem(run: RunRow): TestRun {
  return {
    id: run.id,
    name: run.name,
    status: run.status as TestRun['status'],
    testId: run.testId,
    testRevisionId: run.testRevisionId,
    branchId: run.branchId,
    testName: run.testName,
    branchName: run.branchName,
    scheduleType: run.scheduleType,
    environment: run.environmentName,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    duration: run.duration,
  };
}

export function toDetail(run: RunRow): TestRunDetail {
  const finished = run.status === 'completed' || run.status === 'failed';
  return {
    ...toListItem(run),
    projectId: run.projectId,
    scheduleId: run.scheduleId,
    config: readJson(jsonObject.nullable(), run.config, null, `runs ${run.id}/config`),
    vars: readJson(jsonObject.nullable(), run.vars, null, `runs ${run.id}/vars`),
    parameters: readJson(jsonObject.nullable(), run.parameters, null, `runs ${run.id}/parameters`),
    metadata: readJson(jsonObject.nullable(), run.metadata, null, `runs ${run.id}/metadata`),
    stats: readJson(runStats.nullable(), run.stats, null, `runs ${run.id}/stats`),
    cancelledAt: run.cancelledAt,
    report: finished ? readJson(runReport.nullable(), run.report, null, `runs ${run.id}/report`) : null,
  };
}

/** `startDate`/`endDate`: a date (whole day, inclusive) or a full ISO timestamp. */
function parseDate(value: string, name: string, end: boolean): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const time = Date.parse(dateOnly ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(time)) throw appError('DATE_INVALID', name);
  if (dateOnly && end) return new Date(time + 86_400_000 - 1).toISOString();
  return new Date(time).toISOString();
}

/** Test ids whose runs count for `testId`: the test itself and, for a directory, its active leaves. */
async function testFilterIds(ctx: AppContext, scope: Scope, testId: string): Promise<string[]> {
  const ids = new Set([testId]);
  try {
    const expanded = await expandRunTargets(ctx.db, {
      projectId: scope.projectId,
      branchId: scope.branchId,
      testIds: [testId],
      organizationId: scope.organizationId,
    });
    for (const test of expanded.tests) ids.add(test.id);
  } catch {
    // Unknown or non-executable test: only runs naming it directly match.
  }
  return [...ids];
}

/**
 * The runs a query names: `branchId` overrides the active branch and, like `x-branch-id` and
 * the tests' `branch`, must name a branch of the project (404), not silently match nothing.
 */
async function runFilter(
  ctx: AppContext,
  scope: Scope,
  filter: { testIds?: string[] | undefined; scheduleId?: string | undefined; branchId?: string | undefined },
): Promise<RunFilter> {
  if (filter.branchId !== undefined && filter.branchId !== scope.branchId) {
    if (!(await findBranch(ctx.db, filter.branchId, scope.projectId))) throw appError('BRANCH_NOT_FOUND');
  }
  return {
    projectId: scope.projectId,
    branchId: filter.branchId ?? scope.branchId,
    scheduleId: filter.scheduleId,
    testIds: filter.testIds,
  };
}

export async function listRuns(ctx: AppContext, scope: Scope, query: TestRunListQuery) {
  const testIds = query.testId ? await testFilterIds(ctx, scope, query.testId) : undefined;
  const { total, rows } = await pageOfRuns(
    ctx.db,
    {
      ...(await runFilter(ctx, scope, { testIds, scheduleId: query.scheduleId, branchId: query.branchId })),
      status: query.status,
      nameContains: query.name,
      createdFrom: query.startDate ? parseDate(query.startDate, 'startDate', false) : undefined,
      createdTo: query.endDate ? parseDate(query.endDate, 'endDate', true) : undefined,
    },
    { limit: query.limit, offset: query.page * query.limit },
  );
  const totalPages = Math.ceil(total / query.limit);
  return {
    data: rows.map(toListItem),
    pagination: {
      page: query.page,
      limit: query.limit,
      total,
      totalPages,
      hasMore: (query.page + 1) * query.limit < total,
    },
  };
}

export async function latestRun(
  ctx: AppContext,
  scope: Scope,
  query: { testId?: string; scheduleId?: string; branchId?: string },
) {
  const testIds = query.testId ? await testFilterIds(ctx, scope, query.testId) : undefined;
  const row = await latestRunMatching(ctx.db, await runFilter(ctx, scope, { ...query, testIds }));
  return row
    ? { id: row.id, name: row.name, status: row.status as TestRun['status'], createdAt: row.createdAt }
    : null;
}

/**
 * Statistics over the matching runs: `passed` counts completed runs, `failed` failed runs,
 * `skipped` cancelled runs; runs still in progress count only in `totalRuns`.
 */
export async function runStatistics(
  ctx: AppContext,
  scope: Scope,
  query: { testId?: string; scheduleId?: string; branchId?: string },
): Promise<RunStatistics> {
  const testIds = query.testId ? await testFilterIds(ctx, scope, query.testId) : undefined;
  const rows = await outcomesOfRuns(ctx.db, await runFilter(ctx, scope, { ...query, testIds }));
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let durationSum = 0;
  let lastRun: string | null = null;
  for (const row of rows) {
    if (row.status === 'completed') {
      passed += 1;
      durationSum += row.duration ?? 0;
    } else if (row.status === 'failed') failed += 1;
    else if (row.status === 'cancelled') skipped += 1;
    if (!lastRun || row.createdAt > lastRun) lastRun = row.createdAt;
  }
  return {
    totalRuns: rows.length,
    successRate: passed + failed === 0 ? 0 : Math.round((passed / (passed + failed)) * 100),
    avgDuration: passed === 0 ? 0 : Math.round(durationSum / passed),
    lastRun,
    passed,
    failed,
    skipped,
  };
}

export async function getRun(ctx: AppContext, scope: Scope, runId: string): Promise<RunRow> {
  const run = await findRun(ctx.db, runId);
  if (!run || run.projectId !== scope.projectId || run.organizationId !== scope.organizationId)
    throw appError('RUN_NOT_FOUND');
  return run;
}

export async function listRunTests(ctx: AppContext, scope: Scope, runId: string) {
  await getRun(ctx, scope, runId);
  return (await runTests(ctx.db, runId)).map((test) => ({ testId: test.testId, testName: test.testName }));
}

export function artifactType(file: string): string {
  const lower = file.toLowerCase();
  if (lower.endsWith('.tgz') || lower.endsWith('.tar.gz')) return 'archive';
  if (lower.endsWith('.zip')) return lower.includes('trace') ? 'trace' : 'archive';
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.log') || lower.endsWith('.txt')) return 'log';
  if (/\.(png|jpe?g|gif|webp)$/.test(lower)) return 'image';
  if (/\.(webm|mp4)$/.test(lower)) return 'video';
  return 'file';
}

export async function listArtifacts(ctx: AppContext, scope: Scope, runId: string): Promise<RunArtifact[]> {
  await getRun(ctx, scope, runId);
  const prefix = `runs/${runId}/`;
  const keys = await ctx.blobs.list(prefix);
  const order = ['bundle.tgz', 'playwright-report.tar.gz', 'test-results.json', 'test-run.log'];
  const artifacts: RunArtifact[] = [];
  for (const full of keys) {
    const key = full.slice(prefix.length);
    const parts = key.split('/');
    const file = parts[parts.length - 1] ?? key;
    const artifact: RunArtifact = {
      key,
      label: parts[0] === 'tests' && parts.length >= 3 ? `${parts[1]}: ${file}` : file,
      type: artifactType(file),
      url: await ctx.blobs.presign(full, artifactUrlSeconds, file),
    };
    if (parts[0] === 'tests' && parts.length >= 3) artifact.testName = parts[1] as string;
    artifacts.push(artifact);
  }
  const rank = (key: string) => {
    const index = order.indexOf(key);
    return index === -1 ? order.length : index;
  };
  return artifacts.sort((a, b) => rank(a.key) - rank(b.key) || a.key.localeCompare(b.key));
}

export async function reportHtml(ctx: AppContext, scope: Scope, runId: string): Promise<string> {
  const run = await getRun(ctx, scope, runId);
  if (run.status !== 'completed' && run.status !== 'failed') throw appError('REPORT_NOT_READY', run.status);
  return renderReportHtml(toDetail(run), ctx.config.publicUrl);
}

export async function cancelRun(ctx: AppContext, scope: Scope, runId: string) {
  const run = await getRun(ctx, scope, runId);
  if (!(activeStatuses as readonly string[]).includes(run.status))
    throw appError('RUN_ALREADY_FINISHED', run.status);
  const now = ctx.clock.now().toISOString();
  if (!(await cancelActiveRun(ctx.db, runId, now))) {
    const current = await findRun(ctx.db, runId);
    throw appError('RUN_ALREADY_FINISHED', current?.status ?? 'finished');
  }
  // This process's runner stops at once; a worker elsewhere sees the flag within 500 ms.
  runtimeOf(ctx).abort(runId, new RunCancelledError());
  await ctx.runs.wake();
  const message =
    run.status === 'running'
      ? 'Run cancelled; the browser is being stopped'
      : `Run cancelled before it started (was ${run.status})`;
  return { success: true, message };
}
