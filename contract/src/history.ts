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
