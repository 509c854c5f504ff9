import type {
  FailedStep,
  RunStats,
  TestRunDetail,
  TriageClass,
  VisualChangeSummary,
} from '@stepdeck/contract';
import type { Outcome } from './inputs.ts';

export interface TestOutcome {
  runId: string;
  testId: string;
  name: string;
  /** `passed`, `failed`, `skipped`, or whatever else the runner reported (treated as failed). */
  status: string;
  durationMs: number;
  errorMessage: string | null;
  errorLocation: string | null;
  /**
   * Step-level detail (contract fields that older services do not send: every report falls
   * back to errorMessage/errorLocation without them).
   */
  failedStep: FailedStep | null;
  expected: string | null;
  received: string | null;
  /** Playwright's own text, for JUnit bodies; not in the `results` output (size). */
  errorDetail: string | null;
  /** Failed, then passed on a retry: counts as passed, listed as flaky. */
  flaky: boolean;
  /** Passed in that earlier attempt and not run again (`rerun: failed`). */
  carriedFromAttempt?: number;
  /** A failure as the service classes it (src/triage.ts); absent without triage. */
  triage?: TriageClass;
  /** Why the test is in quarantine (`triage` quarantined). */
  quarantineReason?: string;
  /**
   * The failed step's locator found nothing (or several): it, and the closest element the page
   * had (services that send `locatorSuggestions`).
   */
  locatorHint?: { step: number; from: string; problem: 'none' | 'many'; closest: string | null };
  /** Passed only with a suggestion in place of a step's locator (`heal: retry`). */
  healed?: Array<{ step: number; locator: string }>;
}

/**
 * A screenshot of an `assertScreenshot` step that is not its baseline, as the run reports it:
 * `changed` (beyond the threshold: the step failed) or `new` (no baseline yet: the step passed
 * and recorded a candidate). It awaits a review in the console (src/visual.ts).
 */
export type VisualChange = VisualChangeSummary & { runId: string };

export interface RunSummary {
  runId: string;
  status: string;
  url: string;
  runnerError: string | null;
}

/** The merged result of one or more runs: what every report and output is made from. */
export interface Results {
  status: Outcome;
  runs: RunSummary[];
  /** The service's counts, plus the passed tests that were flaky. */
  stats: RunStats & { flaky: number };
  durationMs: number;
  /** Failed first, then the rest in report order. */
  tests: TestOutcome[];
  /** How many of `tests` were carried over from an earlier attempt. */
  carriedOver?: number;
  /** Why the outcome is what it is, when the counts alone do not say (a deadline). */
  note?: string;
  /** Screenshots not matching their baseline, of every run (absent from older services). */
  visualChanges?: VisualChange[];
}

/** The status of a test the deadline stopped: counted and listed as failed. */
export const unfinishedStatus = 'not finished';

/** `the run exceeded the 30-minute deadline and was cancelled`. */
export const deadlineNote = (timeoutMs: number, runs: number) => {
  const minutes = Math.round((timeoutMs / 60_000) * 100) / 100;
  return `the ${runs === 1 ? 'run' : 'runs'} exceeded the ${minutes}-minute deadline and ${runs === 1 ? 'was' : 'were'} cancelled`;
};

export const runUrl = (baseUrl: string, projectId: string, runId: string) =>
  `${baseUrl}/console/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;

/** Anything but passed, skipped or flaky (Playwright's word for passed on a retry) failed. */
export const isFailedTest = (test: Pick<TestOutcome, 'status'>) =>
  test.status !== 'passed' && test.status !== 'skipped' && test.status !== 'flaky';

export const isFlakyTest = (test: Pick<TestOutcome, 'status' | 'flaky'>) =>
  !isFailedTest(test) && test.status !== 'skipped' && (test.flaky || test.status === 'flaky');

/** Merges runs (several when a big selection was split) into one result. */
export function mergeRuns(
  runs: readonly TestRunDetail[],
  context: {
    baseUrl: string;
    projectId: string;
    timedOut: boolean;
    /** With `timedOut`: the deadline, and the tests of each run it cancelled. */
    timeoutMs?: number;
    unfinished?: ReadonlyMap<string, ReadonlyArray<{ testId: string; testName: string }>> | undefined;
  },
): Results {
  const note = context.timedOut
    ? deadlineNote(context.timeoutMs ?? 0, Math.max(1, context.unfinished?.size ?? 1))
    : undefined;
  const tests: TestOutcome[] = [];
  const stats = { passed: 0, failed: 0, skipped: 0, total: 0, flaky: 0 };
  let durationMs = 0;
  const summaries: RunSummary[] = [];
  const visualChanges: VisualChange[] = [];
  for (const run of runs) {
    const info = run.report?.runTypeInfo;
    for (const change of run.report?.visualChanges ?? []) visualChanges.push({ ...change, runId: run.id });
    for (const result of info?.testResults ?? [])
      tests.push({
        runId: run.id,
        testId: result.testId,
        name: result.name,
        status: result.status,
        durationMs: result.duration,
        errorMessage: result.errorMessage,
        errorLocation: result.errorLocation,
        failedStep: result.failedStep ?? null,
        expected: result.expected ?? null,
        received: result.received ?? null,
        errorDetail: result.errorDetail ?? null,
        flaky: result.flaky === true || result.status === 'flaky',
        ...(result.locatorSuggestions
          ? {
              locatorHint: {
                step: result.locatorSuggestions.step,
                from: result.locatorSuggestions.fromLocator,
                problem: result.locatorSuggestions.problem,
                closest: result.locatorSuggestions.suggestions[0]?.locator ?? null,
              },
            }
          : {}),
        ...(result.healed?.length
          ? { healed: result.healed.map((step) => ({ step: step.step, locator: step.locator })) }
          : {}),
      });
    const reported = new Set((info?.testResults ?? []).map((result) => result.testId));
    const stopped = (context.unfinished?.get(run.id) ?? []).filter((test) => !reported.has(test.testId));
    for (const test of stopped)
      tests.push({
        runId: run.id,
        testId: test.testId,
        name: test.testName,
        status: unfinishedStatus,
        durationMs: 0,
        errorMessage: `not finished: ${note}`,
        errorLocation: null,
        failedStep: null,
        expected: null,
        received: null,
        errorDetail: null,
        flaky: false,
      });
    const runStats = info?.stats ?? run.stats;
    stats.passed += runStats?.passed ?? 0;
    stats.failed += (runStats?.failed ?? 0) + stopped.length;
    stats.skipped += runStats?.skipped ?? 0;
    // Whether or not the service counted the unreported tests in its total, they are in it now.
    stats.total += Math.max(runStats?.total ?? 0, reported.size + stopped.length);
    // Split runs execute side by side: the merged duration is the longest.
    durationMs = Math.max(durationMs, run.report?.duration ?? run.duration ?? wallClock(run));
    summaries.push({
      runId: run.id,
      status: run.status,
      url: runUrl(context.baseUrl, context.projectId, run.id),
      runnerError: info?.runnerError ?? null,
    });
  }
  stats.flaky = tests.filter(isFlakyTest).length;
  // Failed first, then flaky, then the rest (stable: report order within each group).
  const rank = (test: TestOutcome) => (isFailedTest(test) ? 0 : isFlakyTest(test) ? 1 : 2);
  tests.sort((a, b) => rank(a) - rank(b));
  return {
    status: outcomeOf(runs, summaries, stats, context.timedOut),
    runs: summaries,
    stats,
    durationMs,
    tests,
    ...(note ? { note } : {}),
    ...(visualChanges.length > 0 ? { visualChanges } : {}),
  };
}

/** A run cancelled mid-way has no duration of its own: the time from its start to its end. */
function wallClock(run: TestRunDetail): number {
  const end = run.completedAt ?? run.cancelledAt;
  if (!run.startedAt || !end) return 0;
  return Math.max(0, Date.parse(end) - Date.parse(run.startedAt));
}

function outcomeOf(
  runs: readonly TestRunDetail[],
  summaries: RunSummary[],
  stats: RunStats,
  timedOut: boolean,
) {
  if (timedOut) return 'timeout';
  const failedRuns = runs.filter((run) => run.status === 'failed');
  if (failedRuns.length > 0) {
    // A failed run without failed tests (or with a runner error) is the runner's failure.
    if (stats.failed === 0 || summaries.some((run) => run.runnerError)) return 'error';
    return 'failed';
  }
  if (runs.some((run) => run.status === 'cancelled')) return 'cancelled';
  return 'passed';
}

/** The outcome fails the step per `fail-on`. */
export const failsStep = (status: Outcome, failOn: readonly Outcome[]) => failOn.includes(status);
