import { randomUUID } from 'node:crypto';
import type { LeftOutTest, RunConfig, RunSource } from '@stepdeck/contract';
import { toJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { browserInstalled } from '../../runner/browser-builds.ts';
import { deviceProblem } from '../../runner/devices.ts';
import { concurrencyCapOf, findBranch } from '../accounts/public.ts';
import { environmentOfProject } from '../environments/public.ts';
import { expandRunTargets, findWorkingMany } from '../tests/public.ts';
import {
  backlogLimit,
  countRuns,
  findActiveRunForTests,
  insertRun,
  latestCooldownRun,
  lockDispatch,
} from './repository.ts';
import { withoutAbsentBrowsers } from './test-browsers.ts';

export const maxTestsPerRun = 100;
export const cooldownMs = 10_000;

export type RunTrigger =
  | { type: 'apiKey'; name: string }
  | { type: 'schedule'; scheduleId: string; scheduleName: string; scheduleType: string }
  | { type: 'manual'; email: string };

export interface StartRunRequest {
  organizationId: string;
  projectId: string;
  branchId: string;
  testIds?: string[];
  tagId?: string;
  config?: RunConfig;
  /** The config preset the run's config came from (recorded in its metadata). */
  preset?: { id: string; name: string };
  /**
   * An environment of the project, by name: its base URL goes under `config` (which already
   * holds the preset with the caller's own config over it), its variables and secrets are read
   * when the run executes. An unknown name is a 400 naming it.
   */
  environment?: string;
  trigger: RunTrigger;
  mode: 'single' | 'bulk';
  /** Where the run's code came from (commit, ref, pull request, label), as the caller said. */
  source?: RunSource;
}

export interface StartRunResult {
  runId: string;
  status: 'pending';
  totalTests: number;
  message: string;
  /** The target's draft and archived tests, not run (said in the response and kept on the run). */
  leftOut: LeftOutTest[];
  /** True for a single leaf test (the response then omits totalTests and message). */
  single: boolean;
}

/** How many left-out tests a run records by name; the count is always whole. */
const leftOutNamed = 100;

/** The environment's base URL under the run's own config (the preset's and the caller's). */
export function layerOverEnvironment(
  baseURL: string | null,
  config: RunConfig | undefined,
): RunConfig | undefined {
  if (!baseURL) return config;
  return { ...(config ?? {}), use: { baseURL, ...(config?.use ?? {}) } };
}

/** The run's config overrides: headless forced, workers clamped to the organization's cap. */
export function runOverrides(config: RunConfig | undefined, cap: number): RunConfig {
  const overrides: RunConfig = { ...(config ?? {}) };
  overrides.use = { ...(config?.use ?? {}), headless: true };
  if (overrides.workers !== undefined) overrides.workers = Math.max(1, Math.min(overrides.workers, cap));
  return overrides;
}

/**
 * Accepts a remote run (API key, schedule or console) and leaves it `pending` for a runner.
 * Applies every rule of the spec: target selection, the 100-test cap, one active run per
 * test (409), the API cooldowns (429 with Retry-After; schedules are exempt) and the backlog
 * limit (429 "concurrency limit exceeded").
 */
export async function startRun(ctx: AppContext, request: StartRunRequest): Promise<StartRunResult> {
  const hasTestIds = request.testIds !== undefined;
  const hasTag = request.tagId !== undefined;
  if (hasTestIds === hasTag) throw appError('RUN_SELECTION_INVALID');
  if (hasTestIds && (request.testIds as string[]).length === 0) throw appError('RUN_TEST_IDS_EMPTY');
  const environment =
    request.environment === undefined
      ? undefined
      : await environmentOfProject(ctx.db, request.projectId, request.environment);
  const config = layerOverEnvironment(environment?.baseURL ?? null, request.config);
  const deviceRefused = config?.device === undefined ? null : deviceProblem(config.device);
  if (deviceRefused) throw appError('DEVICE_NOT_AVAILABLE', deviceRefused);
  const browser = config?.use?.browserName;
  if ((browser === 'firefox' || browser === 'webkit') && !browserInstalled(browser))
    throw appError('BROWSER_NOT_INSTALLED', browser);
  const applyCooldowns = request.trigger.type !== 'schedule';
  const now = ctx.clock.now();

  if (applyCooldowns && request.mode === 'bulk') {
    const last = await latestCooldownRun(ctx.db, { organizationId: request.organizationId, mode: 'bulk' });
    assertCooldown(last?.createdAt, now, 'bulk runs');
  }

  const expanded = await expandRunTargets(ctx.db, {
    projectId: request.projectId,
    branchId: request.branchId,
    testIds: request.testIds,
    tagId: request.tagId,
    organizationId: request.organizationId,
    leafRunsAnyStatus: request.mode === 'single',
  });
  const target = expanded.target;
  if (expanded.tests.length === 0) throw appError('NO_EXECUTABLE_TESTS');
  const onBrowsers = await withoutAbsentBrowsers(ctx.db, request, config, expanded.tests);
  const tests = onBrowsers.tests;
  const leftOut = [...expanded.leftOut, ...onBrowsers.leftOut];
  if (tests.length > maxTestsPerRun) throw appError('RUN_TOO_MANY_TESTS', tests.length, maxTestsPerRun);
  const single = request.mode === 'single' && target.type === 'test';

  const branch = await findBranch(ctx.db, request.branchId);

  const runId = randomUUID();
  // Under an HTTP request this is the request's first transaction, so its audit entry is
  // written right after BEGIN and commits (or rolls back) with the run (db/companion-writes.ts).
  await ctx.db.transaction().execute(async (tx) => {
    await lockDispatch(tx, ctx.database.kind, `runs:${request.organizationId}`);
    const active = await findActiveRunForTests(
      tx,
      tests.map((test) => test.id),
    );
    if (active) throw appError('RUN_ALREADY_ACTIVE');
    if (applyCooldowns && request.mode === 'single') {
      const last = await latestCooldownRun(tx, {
        organizationId: request.organizationId,
        mode: 'single',
        testId: target.id,
      });
      assertCooldown(last?.createdAt, now, 'runs of a test');
    }
    if ((await countRuns(tx, request.organizationId, ['pending'])) >= backlogLimit)
      throw appError('CONCURRENCY_LIMIT').retryAfter(10);
    const cap = await concurrencyCapOf(tx, request.organizationId);
    const trigger = request.trigger;
    const triggerName =
      trigger.type === 'apiKey'
        ? trigger.name
        : trigger.type === 'schedule'
          ? trigger.scheduleName
          : trigger.email;
    // A single-test run records what it was started with: the test's working revision on the
    // branch and that revision's vars/parameters (runs of several tests leave them null).
    const working = single
      ? (await findWorkingMany(tx, request.projectId, request.branchId, [target.id]))[0]
      : undefined;
    await insertRun(
      tx,
      {
        id: runId,
        organizationId: request.organizationId,
        projectId: request.projectId,
        branchId: request.branchId,
        branchName: branch?.name ?? '',
        name: target.name,
        status: 'pending',
        mode: request.mode,
        targetType: target.type,
        targetId: target.id,
        targetName: target.name,
        testId: request.mode === 'single' ? target.id : null,
        testName: request.mode === 'single' ? target.name : null,
        testRevisionId: working?.revisionId ?? null,
        scheduleId: trigger.type === 'schedule' ? trigger.scheduleId : null,
        scheduleType: trigger.type === 'schedule' ? trigger.scheduleType : null,
        scheduleName: trigger.type === 'schedule' ? trigger.scheduleName : null,
        triggerType: trigger.type,
        triggerName,
        config: toJson(runOverrides(config, cap)),
        vars: working?.vars ? toJson(working.vars) : null,
        parameters: working?.parameters ? toJson(working.parameters) : null,
        environmentId: environment?.id ?? null,
        environmentName: environment?.name ?? null,
        // The trigger's name (key, schedule or user) lets the console say who started the run.
        metadata: toJson({
          target,
          trigger: { type: trigger.type, name: triggerName },
          ...(request.preset ? { preset: request.preset } : {}),
          ...(request.source && Object.keys(request.source).length > 0 ? { source: request.source } : {}),
          ...(leftOut.length > 0
            ? { leftOut: { count: leftOut.length, tests: leftOut.slice(0, leftOutNamed) } }
            : {}),
        }),
        totalTests: tests.length,
        stats: null,
        report: null,
        runnerError: null,
        duration: null,
        runnerId: null,
        heartbeatAt: null,
        createdAt: now.toISOString(),
        queuedAt: null,
        startedAt: null,
        completedAt: null,
        cancelledAt: null,
      },
      tests,
    );
  });
  await ctx.runs.wake();
  return {
    runId,
    status: 'pending',
    totalTests: tests.length,
    message: `Started a run of ${tests.length} test${tests.length === 1 ? '' : 's'}`,
    leftOut: leftOut.slice(0, leftOutNamed),
    single,
  };
}

function assertCooldown(
  lastCreatedAt: string | undefined,
  now: Date,
  between: 'bulk runs' | 'runs of a test',
) {
  if (!lastCreatedAt) return;
  const elapsed = now.getTime() - Date.parse(lastCreatedAt);
  if (elapsed < cooldownMs && elapsed >= 0)
    throw appError('RUN_COOLDOWN', between).retryAfter((cooldownMs - elapsed) / 1000);
}
