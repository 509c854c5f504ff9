import { z } from 'zod';
import { dataOf, isoTimestamp, pagination, queryInteger, runStatus } from './common.ts';
import { dataRowRef } from './data-set.ts';
import { environmentName } from './environments.ts';
import { healedStep, locatorSuggestions } from './healing.ts';
import { runSource, triageClass } from './history.ts';
import { runConfig } from './run-config.ts';
import { visualChangeSummary } from './visual.ts';
import { stepVitals } from './vitals.ts';

/** `POST /v1/tests/:testId/remote-run` on a leaf test. */
export const remoteRunSingle = z.object({ runId: z.string(), status: runStatus });
export const remoteRunSingleResponse = dataOf(remoteRunSingle);

/**
 * A test of the run's target that the run did not include, and why: directory, tag and bulk
 * runs take active tests only, and leave out an active test whose own config names a browser
 * not installed where the service runs (`reason`, `browser`). Additive; at most 100 named, the
 * run's metadata has the count.
 */
export const leftOutTest = z.object({
  testId: z.string(),
  name: z.string(),
  status: z.enum(['draft', 'archived', 'active']),
  /** Present when the status is not the reason. */
  reason: z.literal('browser not installed').optional(),
  browser: z.enum(['firefox', 'webkit']).optional(),
});
export type LeftOutTest = z.infer<typeof leftOutTest>;

/** Directory (single endpoint) and bulk (`POST /v1/tests/remote-run`) runs. */
export const remoteRunMany = z.object({
  runId: z.string(),
  status: runStatus,
  totalTests: z.number().int(),
  message: z.string(),
  leftOut: z.array(leftOutTest).optional(),
});
export const remoteRunManyResponse = dataOf(remoteRunMany);

/** Either shape: `totalTests`/`message` are absent for a single leaf. */
export const remoteRunResult = z.object({
  runId: z.string(),
  status: runStatus,
  totalTests: z.number().int().optional(),
  message: z.string().optional(),
  leftOut: z.array(leftOutTest).optional(),
});
export const remoteRunResponse = dataOf(remoteRunResult);

/** Body of `POST /v1/tests/remote-run`. */
export const bulkRemoteRunBody = z.object({
  testIds: z.array(z.string()).optional(),
  tagId: z.string().optional(),
  config: runConfig.optional(),
  /** A config preset of the project (console sessions only): its config, with `config` over it. */
  presetId: z.uuid({ error: 'presetId must be a preset UUID' }).optional(),
  /** An environment of the project by name (additive): its base URL, variables and secrets. */
  environment: environmentName.optional(),
  /** Where the run's code came from (commit, ref, pull request, label); additive. */
  metadata: runSource.optional(),
});
/** Body of `POST /v1/tests/:testId/remote-run`. */
export const singleRemoteRunBody = z
  .object({
    config: runConfig.optional(),
    presetId: z.uuid({ error: 'presetId must be a preset UUID' }).optional(),
    environment: environmentName.optional(),
    metadata: runSource.optional(),
  })
  .loose();
export type BulkRemoteRunBody = z.infer<typeof bulkRemoteRunBody>;

export const runStats = z.object({
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  total: z.number().int(),
});
export type RunStats = z.infer<typeof runStats>;

/** Item of `GET /v1/test-runs`. */
export const testRun = z.object({
  id: z.string(),
  name: z.string(),
  status: runStatus,
  testId: z.string().nullable(),
  testRevisionId: z.string().nullable(),
  branchId: z.string(),
  testName: z.string().nullable(),
  branchName: z.string().nullable(),
  scheduleType: z.string().nullable(),
  /** The environment the run used, by name (additive); null for none. */
  environment: z.string().nullable().optional(),
  createdAt: isoTimestamp,
  startedAt: isoTimestamp.nullable(),
  completedAt: isoTimestamp.nullable(),
  duration: z.number().int().nullable(),
});
export type TestRun = z.infer<typeof testRun>;
export const testRunListResponse = z.object({ data: z.array(testRun), pagination });

/** Outcome of one step the user wrote, in the attempt that decided the test's status. */
export const stepOutcome = z.enum(['passed', 'failed', 'skipped', 'notRun']);
export type StepOutcome = z.infer<typeof stepOutcome>;

/**
 * One step of a test's step tree, flattened in document order: `path` holds the names from the
 * top-level step down to this one (test › group › step), `depth` its nesting level.
 */
export const runStepResult = z.object({
  stepId: z.string().nullable(),
  name: z.string(),
  /** The action in the user's words, e.g. `assertText #out` or `group`. */
  action: z.string().nullable(),
  path: z.array(z.string()),
  depth: z.number().int(),
  status: stepOutcome,
  duration: z.number().int(),
  error: z.string().nullable(),
  /** Passed only with a suggestion in place of its locator (`heal: retry`; additive). */
  healed: z.object({ from: z.string(), to: z.string(), locator: z.string() }).optional(),
});
export type RunStepResult = z.infer<typeof runStepResult>;

/** The step that failed a test, as the user wrote it. */
export const failedStep = z.object({
  stepId: z.string().nullable(),
  name: z.string(),
  action: z.string().nullable(),
  path: z.array(z.string()),
});
export type FailedStep = z.infer<typeof failedStep>;

/**
 * One test's outcome in a run report. `errorMessage` is the user-facing message (expectation,
 * what was received, the failing step; no generated code, no server paths) and `errorLocation`
 * the failing step's path (`Checkout › Pay › assertText #out`). The fields after `attempts`
 * are additive: `errorDetail` keeps Playwright's own text (ANSI stripped, secrets redacted).
 */
export const runTestResult = z.object({
  testId: z.string(),
  name: z.string(),
  status: z.string(),
  duration: z.number().int(),
  errorMessage: z.string().nullable(),
  errorLocation: z.string().nullable(),
  attempts: z.number().int().optional(),
  failedStep: failedStep.nullable().optional(),
  expected: z.string().nullable().optional(),
  received: z.string().nullable().optional(),
  errorDetail: z.string().nullable().optional(),
  /** Failed at least once, then passed on a retry. */
  flaky: z.boolean().optional(),
  steps: z.array(runStepResult).optional(),
  /** The failed step's locator found nothing (or several): the page's closest elements (additive). */
  locatorSuggestions: locatorSuggestions.nullable().optional(),
  /**
   * Steps that passed only with a suggestion (`heal: retry`); the test's status stays `passed`
   * (the spec's values), this says it was healed (additive).
   */
  healed: z.array(healedStep).optional(),
  /** Web Vitals its `measureVitals` / `assertVitals` steps measured, in step order (additive). */
  vitals: z.array(stepVitals).optional(),
  /**
   * A failed test's standing across runs (`GET /v1/test-runs/:runId/triage`): new, known on
   * the base branch, flaky or quarantined. Added when the run is read, absent on passed tests
   * and where no history is kept (additive).
   */
  triage: triageClass.optional(),
  /** The row of the test's data set this result ran (additive; absent for a test without one). */
  dataRow: dataRowRef.optional(),
});
export type RunTestResult = z.infer<typeof runTestResult>;

/** `report` of a `completed` or `failed` run (null otherwise). */
export const runReport = z.object({
  status: runStatus,
  testName: z.string().nullable(),
  runName: z.string(),
  runId: z.string(),
  duration: z.number().int(),
  completedAt: isoTimestamp.nullable(),
  branchId: z.string(),
  branchName: z.string().nullable(),
  scheduleName: z.string().nullable(),
  runTypeInfo: z.object({
    /** `test`, `directory` or `tag`. */
    type: z.string(),
    name: z.string(),
    testResults: z.array(runTestResult),
    stats: runStats,
    runnerError: z.string().nullable().optional(),
  }),
  /** Screenshots of `assertScreenshot` steps that are not their baseline (review: visual-changes). */
  visualChanges: z.array(visualChangeSummary).optional(),
});
export type RunReport = z.infer<typeof runReport>;

/**
 * One runner slot that took part in an orchestrated (split) run: which worker, the tests it
 * ran (batches it took, summed) and its busy time. Additive: the console shows it.
 */
export const runShard = z.object({
  worker: z.string(),
  tests: z.number().int(),
  batches: z.number().int(),
  durationMs: z.number().int(),
});
export type RunShard = z.infer<typeof runShard>;

/**
 * One batch of an orchestrated run's live queue: the tests it holds (ids of the report's
 * `testResults`), where and how it ran. Additive, split runs only: the console shows it.
 */
export const runBatch = z.object({
  position: z.number().int(),
  status: z.enum(['pending', 'claimed', 'done', 'cancelled']),
  testIds: z.array(z.string()),
  /** The slot that took it last (`host:pid:nonce#slot`), null while pending. */
  worker: z.string().nullable(),
  /** Times it was claimed: 2 when its first runner died and another slot ran it again. */
  attempts: z.number().int(),
  expectedMs: z.number().int(),
  startedAt: isoTimestamp.nullable(),
  completedAt: isoTimestamp.nullable(),
  durationMs: z.number().int().nullable(),
});
export type RunBatch = z.infer<typeof runBatch>;

/** `GET /v1/test-runs/:runId`. */
export const testRunDetail = testRun.extend({
  projectId: z.string(),
  scheduleId: z.string().nullable(),
  config: z.record(z.string(), z.unknown()).nullable(),
  vars: z.record(z.string(), z.unknown()).nullable(),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  stats: runStats.nullable(),
  cancelledAt: isoTimestamp.nullable(),
  report: runReport.nullable(),
  shards: z.array(runShard).optional(),
  batches: z.array(runBatch).optional(),
});
export type TestRunDetail = z.infer<typeof testRunDetail>;
export const testRunDetailResponse = dataOf(testRunDetail);

/** `GET /v1/test-runs/latest`. */
export const runSummary = z.object({
  id: z.string(),
  name: z.string(),
  status: runStatus,
  createdAt: isoTimestamp,
});
export const latestRunResponse = dataOf(runSummary.nullable());

/** `GET /v1/test-runs/stats`. */
export const runStatistics = z.object({
  totalRuns: z.number().int(),
  successRate: z.number().int(),
  avgDuration: z.number().int(),
  lastRun: isoTimestamp.nullable(),
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
});
export type RunStatistics = z.infer<typeof runStatistics>;
export const runStatisticsResponse = dataOf(runStatistics);

/** `GET /v1/test-runs/:runId/artifacts` item. */
export const runArtifact = z.object({
  key: z.string(),
  label: z.string(),
  type: z.string(),
  url: z.string(),
  testName: z.string().optional(),
});
export type RunArtifact = z.infer<typeof runArtifact>;
export const runArtifactsResponse = dataOf(z.array(runArtifact));

/** `GET /v1/test-runs/:runId/tests`. */
export const runTestsResponse = dataOf(z.array(z.object({ testId: z.string(), testName: z.string() })));

/** `POST /v1/test-runs/:runId/cancel`. */
export const cancelRun = z.object({ success: z.boolean(), message: z.string() });
export const cancelRunResponse = dataOf(cancelRun);

/** Query of `GET /v1/test-runs`. */
export const testRunListQuery = z.object({
  limit: queryInteger('limit', 1, 500).default(20),
  page: queryInteger('page', 0).default(0),
  status: runStatus.optional(),
  name: z.string().optional(),
  testId: z.uuid({ error: 'testId must be a UUID' }).optional(),
  scheduleId: z.uuid({ error: 'scheduleId must be a UUID' }).optional(),
  branchId: z.uuid({ error: 'branchId must be a UUID' }).optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});
export type TestRunListQuery = z.infer<typeof testRunListQuery>;

/** Query of `GET /v1/test-runs/latest` and `/stats`. */
export const testRunLatestQuery = z.object({
  testId: z.uuid({ error: 'testId must be a UUID' }).optional(),
  scheduleId: z.uuid({ error: 'scheduleId must be a UUID' }).optional(),
  branchId: z.uuid({ error: 'branchId must be a UUID' }).optional(),
});
