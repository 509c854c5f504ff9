import { z } from 'zod';
import { dataOf, isoTimestamp, pagination, queryInteger } from './common.ts';

/**
 * Where a run's code came from, sent by the action and CLI with a trigger (all optional,
 * additive): the commit, the ref, the pull request's number and base ref, and a free label
 * (a deploy, an environment). Stored with the run; its test results carry it in their history.
 */
export const runSource = z.object({
  commitSha: z.string().max(64, 'metadata.commitSha must be at most 64 characters').optional(),
  ref: z.string().max(255, 'metadata.ref must be at most 255 characters').optional(),
  baseRef: z.string().max(255, 'metadata.baseRef must be at most 255 characters').optional(),
  pullRequest: z
    .number({ error: 'metadata.pullRequest must be a number' })
    .int('metadata.pullRequest must be a whole number')
    .positive('metadata.pullRequest must be positive')
    .optional(),
  label: z.string().max(200, 'metadata.label must be at most 200 characters').optional(),
});
export type RunSource = z.infer<typeof runSource>;

export const historyStatus = z.enum(['passed', 'failed', 'skipped', 'flaky']);
export type HistoryStatus = z.infer<typeof historyStatus>;

/** One stored result of a test in a run (`GET /v1/tests/:testId/history` item). */
export const testHistoryEntry = z.object({
  runId: z.string(),
  testId: z.string(),
  testRevisionId: z.string().nullable(),
  branchId: z.string(),
  branchName: z.string(),
  /** apiKey | schedule | manual. */
  trigger: z.string(),
  /** `flaky`: failed, then passed on a retry of the same run. */
  status: historyStatus,
  duration: z.number().int(),
  attempts: z.number().int(),
  failedStepId: z.string().nullable(),
  /** The failure normalised (step, assertion kind, selector; volatile values stripped); null when it passed. */
  fingerprint: z.string().nullable(),
  errorMessage: z.string().nullable(),
  /** Each step's duration in the attempt that decided the status, in document order. */
  stepDurations: z.array(z.object({ stepId: z.string(), duration: z.number().int() })),
  commitSha: z.string().nullable(),
  ref: z.string().nullable(),
  pullRequest: z.number().int().nullable(),
  label: z.string().nullable(),
  createdAt: isoTimestamp,
});
export type TestHistoryEntry = z.infer<typeof testHistoryEntry>;

/**
 * A step whose duration moved: its median over the latest 5 results (`after`, ms) against the
 * median before them in the window (`before`), when it at least doubled and grew by 500 ms or
 * more. `position` counts the test's steps in document order from 1; `since` is the result
 * where the longer durations began.
 */
export const stepShift = z.object({
  stepId: z.string(),
  position: z.number().int(),
  before: z.number().int(),
  after: z.number().int(),
  since: z.object({ runId: z.string(), createdAt: isoTimestamp }).nullable(),
});
export type StepShift = z.infer<typeof stepShift>;

/** Derived over the filtered results of the summary's window (the latest `window` of them). */
export const testHistorySummary = z.object({
  window: z.number().int(),
  runs: z.number().int(),
  /** Share of passed (or flaky) results among the non-skipped ones, 0..1; null with none. */
  passRate: z.number().nullable(),
  /**
   * Share of flaky results, 0..1: passed on a retry, or both outcomes on the same test
   * revision and commit within the window.
   */
  flakeRate: z.number().nullable(),
  /** The first result of the current failure streak (null when the latest result passed). */
  failingSince: z
    .object({ runId: z.string(), createdAt: isoTimestamp, commitSha: z.string().nullable() })
    .nullable(),
  durationP50: z.number().int().nullable(),
  durationP95: z.number().int().nullable(),
  /** Median duration of the latest 5 decided results and of the earlier ones (null until 5 of each). */
  durationTrend: z.object({ recentP50: z.number().int(), earlierP50: z.number().int() }).nullable(),
  stepShifts: z.array(stepShift),
});
export type TestHistorySummary = z.infer<typeof testHistorySummary>;

export const testQuarantine = z.object({
  testId: z.string(),
  reason: z.string(),
  owner: z.string().nullable(),
  expiresAt: isoTimestamp.nullable(),
  createdBy: z.string(),
  createdAt: isoTimestamp,
});
export type TestQuarantine = z.infer<typeof testQuarantine>;

export const testHistoryResponse = z.object({
  data: z.array(testHistoryEntry),
  pagination,
  summary: testHistorySummary,
  quarantine: testQuarantine.nullable(),
});
export type TestHistoryResponse = z.infer<typeof testHistoryResponse>;

/** Query of `GET /v1/tests/:testId/history`. */
export const testHistoryQuery = z.object({
  limit: queryInteger('limit', 1, 500).default(20),
  page: queryInteger('page', 0).default(0),
  /** A branch name of the project (default: every branch). */
  branch: z.string().min(1, 'branch must not be empty').optional(),
  status: historyStatus.optional(),
  since: z.iso.datetime({ offset: true, error: 'since must be an ISO 8601 date-time' }).optional(),
  /** How many latest results the summary looks at. */
  window: queryInteger('window', 1, 1000).default(50),
});
export type TestHistoryQuery = z.infer<typeof testHistoryQuery>;

/**
 * Where a failure of a run stands: `quarantined` (the test is in quarantine: it does not fail
 * the action or CLI), `flaky` (flaky in its latest results), `known`
 * (the same fingerprint failing on the base branch), else `new`.
 */
export const triageClass = z.enum(['new', 'known', 'flaky', 'quarantined']);
export type TriageClass = z.infer<typeof triageClass>;

export const runTriageItem = z.object({
  testId: z.string(),
  name: z.string(),
  status: z.string(),
  triage: triageClass,
  fingerprint: z.string().nullable(),
  /** The base branch's latest run with the same failure (`known`). */
  knownSince: z
    .object({ runId: z.string(), createdAt: isoTimestamp, commitSha: z.string().nullable() })
    .nullable(),
  /** Flake rate of the test over its recent history on any branch, 0..1 (null without history). */
  flakeRate: z.number().nullable(),
  quarantine: testQuarantine.nullable(),
});
export type RunTriageItem = z.infer<typeof runTriageItem>;

/** `GET /v1/test-runs/:runId/triage`. */
export const runTriage = z.object({
  runId: z.string(),
  /** The branch the failures were compared with. */
  baseBranch: z.string().nullable(),
  failures: z.array(runTriageItem),
  counts: z.object({
    new: z.number().int(),
    known: z.number().int(),
    flaky: z.number().int(),
    quarantined: z.number().int(),
  }),
});
export type RunTriage = z.infer<typeof runTriage>;
export const runTriageResponse = dataOf(runTriage);

/** `PUT /v1/tests/:testId/quarantine`. */
export const quarantineBody = z.object({
  reason: z
    .string({ error: 'reason is required' })
    .trim()
    .min(1, 'reason is required')
    .max(500, 'reason must be at most 500 characters'),
  owner: z.string().trim().min(1).max(200, 'owner must be at most 200 characters').optional(),
  expiresAt: z.iso.datetime({ offset: true, error: 'expiresAt must be an ISO 8601 date-time' }).optional(),
});
export type QuarantineBody = z.infer<typeof quarantineBody>;
export const testQuarantineResponse = dataOf(testQuarantine);

/** Where a test stands on a branch, derived from its latest results there. */
export const testHealth = z.object({
  testId: z.string(),
  /** Its name in its latest recorded run. */
  name: z.string(),
  lastRunId: z.string(),
  lastStatus: historyStatus,
  lastResultAt: isoTimestamp,
  failingSince: z
    .object({ runId: z.string(), createdAt: isoTimestamp, commitSha: z.string().nullable() })
    .nullable(),
  passRate: z.number().nullable(),
  flakeRate: z.number().nullable(),
  /** How many latest results the rates are over. */
  sampleSize: z.number().int(),
});
export type TestHealth = z.infer<typeof testHealth>;

/**
 * Whether a quarantined test has earned its way out: its decided results since it was put in
 * quarantine, how many passed, and the lower bound of the pass rate's 95 % Wilson interval.
 * It leaves quarantine by itself once `passRateLowerBound` reaches `releaseAt`.
 */
export const quarantineEvidence = z.object({
  results: z.number().int(),
  passes: z.number().int(),
  passRateLowerBound: z.number().nullable(),
  releaseAt: z.number(),
});
export type QuarantineEvidence = z.infer<typeof quarantineEvidence>;

export const quarantinedTest = z.object({
  testId: z.string(),
  /** Null when the test has no recorded result yet. */
  name: z.string().nullable(),
  quarantine: testQuarantine,
  evidence: quarantineEvidence,
});
export type QuarantinedTest = z.infer<typeof quarantinedTest>;

/** A test put in or taken out of quarantine, by a person or by the flake and release rules. */
export const quarantineEvent = z.object({
  testId: z.string(),
  name: z.string().nullable(),
  kind: z.enum(['quarantined', 'released']),
  automatic: z.boolean(),
  actor: z.string(),
  reason: z.string(),
  evidence: quarantineEvidence.nullable(),
  createdAt: isoTimestamp,
});
export type QuarantineEvent = z.infer<typeof quarantineEvent>;

/** `GET /v1/test-insights`: a project's flaky, failing and quarantined tests on one branch. */
export const testInsights = z.object({
  branchId: z.string(),
  branchName: z.string(),
  /** Flake rate above 0, highest first. */
  flaky: z.array(testHealth),
  /** Failing in their latest result, the most recently broken first. */
  failing: z.array(testHealth),
  quarantined: z.array(quarantinedTest),
  /** The latest quarantine changes of the project, newest first. */
  quarantineEvents: z.array(quarantineEvent),
  /** Automatic quarantine: the flake rate that puts a test in it (null: off). */
  autoQuarantineAt: z.number().nullable(),
});
export type TestInsights = z.infer<typeof testInsights>;
export const testInsightsResponse = dataOf(testInsights);

export const testInsightsQuery = z.object({
  /** A branch id or name (default: the project's default branch). */
  branch: z.string().min(1, 'branch must not be empty').optional(),
  limit: queryInteger('limit', 1, 200).default(50),
});
export type TestInsightsQuery = z.infer<typeof testInsightsQuery>;
