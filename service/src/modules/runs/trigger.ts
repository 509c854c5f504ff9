import { randomUUID } from 'node:crypto';
import type { LeftOutTest, RunConfig, RunSource } from '@stepdeck/contract';
import { type Db, toJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { browserInstalled, type PlaywrightOnlyBrowser } from '../../runner/browser-builds.ts';
import { deviceProblem } from '../../runner/devices.ts';
import { concurrencyCapOf, findBranch } from '../accounts/public.ts';
import type { AuditEntryWriter } from '../audit/public.ts';
import { environmentOfProject, type PickedEnvironment } from '../environments/public.ts';
import { layerOverPreset, type PresetForRun, presetOfProject } from '../presets/public.ts';
import { expandRunTargets, findWorkingMany } from '../tests/public.ts';
import {
  backlogLimit,
  countRuns,
  findActiveRunForTests,
  insertRun,
  latestCooldownRun,
  lockDispatch,
  type RunRow,
} from './repository.ts';

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
  /** The caller's own config, over the preset's. */
  config?: RunConfig;
  /** A config preset of the project, by id (a console request); 404 when the project has none such. */
  presetId?: string;
  /** The preset as its caller read it (a schedule's, as it fires), used as `presetId`'s would be. */
  preset?: PresetForRun;
  /**
   * An environment of the project, by name (else the preset's): its base URL goes under the
   * run's config, its variables and secrets are read when the run executes. An unknown name is
   * a 400 naming it.
   */
  environment?: string;
  trigger: RunTrigger;
  mode: 'single' | 'bulk';
  /** Where the run's code came from (commit, ref, pull request, label), as the caller said. */
  source?: RunSource;
  /**
   * The request's audit entry, written first in the run's transaction: the run and its entry
   * commit together or not at all. None for a schedule's firing (no request).
   */
  audit?: AuditEntryWriter;
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

type RunTest = { id: string; name: string };

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
 * Applies every rule of the spec, in this order: the preset (404), the selection (400), the
 * run's config (unknown environment, device or browser: 400), the bulk cooldown (429), the
 * target's tests (404, nothing runnable, absent browsers, the 100-test cap); then, in one
 * transaction that writes the request's audit entry first, one active run per test (409), the
 * per-test cooldown and the backlog limit (429), and the insert. Schedules skip the cooldowns.
 */
export async function startRun(ctx: AppContext, request: StartRunRequest): Promise<StartRunResult> {
  // The run's config: the preset's, the caller's over it, the environment's base URL under both
  // (an unknown preset is answered before the selection is checked).
  const preset =
    request.presetId === undefined
      ? request.preset
      : await presetOfProject(ctx.db, request.projectId, request.presetId.toLowerCase());
  const hasTestIds = request.testIds !== undefined;
  const hasTag = request.tagId !== undefined;
  if (hasTestIds === hasTag) throw appError('RUN_SELECTION_INVALID');
  if (hasTestIds && (request.testIds as string[]).length === 0) throw appError('RUN_TEST_IDS_EMPTY');
  const environmentName = request.environment ?? preset?.environment;
  const environment =
    environmentName === undefined
      ? undefined
      : await environmentOfProject(ctx.db, request.projectId, environmentName);
  const ownConfig = preset ? layerOverPreset(preset.config, request.config) : request.config;
  const config = layerOverEnvironment(environment?.baseURL ?? null, ownConfig);
  const deviceRefused = config?.device === undefined ? null : deviceProblem(config.device);
  if (deviceRefused) throw appError('DEVICE_NOT_AVAILABLE', deviceRefused);
  const browser = config?.use?.browserName;
  if ((browser === 'firefox' || browser === 'webkit') && !browserInstalled(browser))
    throw appError('BROWSER_NOT_INSTALLED', browser);
  const applyCooldowns = request.trigger.type !== 'schedule';
  const now = ctx.clock.now();

  // The target's tests.
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
  await ctx.db.transaction().execute(async (tx) => {
    // The request's audit entry first: the run and its entry commit together, or neither does.
    await request.audit?.write(tx);
    // The checks below and the insert, one trigger of the organization at a time.
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
    // A single-test run records what it was started with: the test's working revision on the
    // branch and that revision's vars/parameters (runs of several tests leave them null).
    const working = single
      ? (await findWorkingMany(tx, request.projectId, request.branchId, [target.id]))[0]
      : undefined;
    const run = runRow(request, {
      runId,
      branchName: branch?.name ?? '',
      target,
      tests,
      leftOut,
      config: runOverrides(config, cap),
      working,
      environment,
      preset,
      now,
    });
    await insertRun(tx, run, tests);
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

/** The `runs` row of an accepted run, `pending`. */
function runRow(
  request: StartRunRequest,
  run: {
    runId: string;
    branchName: string;
    target: { type: 'test' | 'directory' | 'tag'; id: string; name: string };
    tests: RunTest[];
    leftOut: LeftOutTest[];
    config: RunConfig;
    working: { revisionId: string; vars: unknown; parameters: unknown } | undefined;
    environment: PickedEnvironment | undefined;
    preset: PresetForRun | undefined;
    now: Date;
  },
): RunRow {
  const { trigger, mode } = request;
  const { target, working, environment, preset, leftOut } = run;
  const triggerName =
    trigger.type === 'apiKey'
      ? trigger.name
      : trigger.type === 'schedule'
        ? trigger.scheduleName
        : trigger.email;
  return {
    id: run.runId,
    organizationId: request.organizationId,
    projectId: request.projectId,
    branchId: request.branchId,
    branchName: run.branchName,
    name: target.name,
    status: 'pending',
    mode,
    targetType: target.type,
    targetId: target.id,
    targetName: target.name,
    testId: mode === 'single' ? target.id : null,
    testName: mode === 'single' ? target.name : null,
    testRevisionId: working?.revisionId ?? null,
    scheduleId: trigger.type === 'schedule' ? trigger.scheduleId : null,
    scheduleType: trigger.type === 'schedule' ? trigger.scheduleType : null,
    scheduleName: trigger.type === 'schedule' ? trigger.scheduleName : null,
    triggerType: trigger.type,
    triggerName,
    config: toJson(run.config),
    vars: working?.vars ? toJson(working.vars) : null,
    parameters: working?.parameters ? toJson(working.parameters) : null,
    environmentId: environment?.id ?? null,
    environmentName: environment?.name ?? null,
    // The trigger's name (key, schedule or user) lets the console say who started the run.
    metadata: toJson({
      target,
      trigger: { type: trigger.type, name: triggerName },
      ...(preset ? { preset: { id: preset.id, name: preset.name } } : {}),
      ...(request.source && Object.keys(request.source).length > 0 ? { source: request.source } : {}),
      ...(leftOut.length > 0
        ? { leftOut: { count: leftOut.length, tests: leftOut.slice(0, leftOutNamed) } }
        : {}),
    }),
    totalTests: run.tests.length,
    stats: null,
    report: null,
    runnerError: null,
    duration: null,
    runnerId: null,
    heartbeatAt: null,
    createdAt: run.now.toISOString(),
    queuedAt: null,
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
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

/**
 * A run whose own config names no browser runs each test on the browser its saved config names.
 * A test saved for Firefox or WebKit whose build is absent would fail at its first step, so it
 * is caught at trigger: a run of that one test (or of nothing else) is refused with a 400
 * naming the test; a directory, tag or bulk run leaves it out with the reason and runs the rest.
 */
async function withoutAbsentBrowsers(
  db: Db,
  scope: { projectId: string; branchId: string },
  runConfig: RunConfig | undefined,
  tests: RunTest[],
): Promise<{ tests: RunTest[]; leftOut: LeftOutTest[] }> {
  if (runConfig?.use?.browserName !== undefined) return { tests, leftOut: [] };
  const absent = (['firefox', 'webkit'] as const).filter((browser) => !browserInstalled(browser));
  if (absent.length === 0 || tests.length === 0) return { tests, leftOut: [] };
  const working = await findWorkingMany(
    db,
    scope.projectId,
    scope.branchId,
    tests.map((test) => test.id),
  );
  const browserOf = new Map<string, PlaywrightOnlyBrowser>();
  for (const test of working) {
    const browser = (test.config as RunConfig | null)?.use?.browserName;
    if (browser === 'firefox' || browser === 'webkit')
      if (absent.includes(browser)) browserOf.set(test.id, browser);
  }
  if (browserOf.size === 0) return { tests, leftOut: [] };
  const first = tests.find((test) => browserOf.has(test.id)) as RunTest;
  if (browserOf.size === tests.length)
    throw appError('BROWSER_NOT_INSTALLED', browserOf.get(first.id) as string, first.name);
  return {
    tests: tests.filter((test) => !browserOf.has(test.id)),
    leftOut: tests.flatMap((test) => {
      const browser = browserOf.get(test.id);
      return browser
        ? [
            {
              testId: test.id,
              name: test.name,
              status: 'active' as const,
              reason: 'browser not installed' as const,
              browser,
            },
          ]
        : [];
    }),
  };
}
