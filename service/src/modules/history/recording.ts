import type { RunTestResult } from '@stepdeck/contract';
import { toJson } from '../../adapters/db/index.ts';
import { type RunOutcome, worstPerTest } from '../runs/public.ts';
import { fingerprintOf } from './fingerprint.ts';
import type { TestResultRow } from './repository.ts';

/** Error messages are kept short: the run's report keeps the whole text. */
const maxMessageChars = 1000;

/** A report status as history counts it: passed on a retry is `flaky`, any other non-pass is `failed`. */
export function historyStatusOf(test: Pick<RunTestResult, 'status' | 'flaky'>): string {
  if (test.status === 'passed') return test.flaky ? 'flaky' : 'passed';
  if (test.status === 'skipped') return 'skipped';
  return 'failed';
}

/** The fingerprint of a reported test's failure (null when it did not fail). */
export function fingerprintOfResult(test: RunTestResult): string | null {
  if (historyStatusOf(test) !== 'failed') return null;
  return fingerprintOf({
    stepId: test.failedStep?.stepId ?? null,
    action: test.failedStep?.action ?? null,
    errorMessage: test.errorMessage,
  });
}

/**
 * The history rows of an ended run, one per test of its report: a test with several results
 * (one per data set row, or repeats) is recorded once, with its worst, so history and health
 * count runs of the test and keep their (runId, testId) key.
 */
export function resultRows(run: RunOutcome, revisions: ReadonlyMap<string, string>): TestResultRow[] {
  const tests = worstPerTest(run.report?.runTypeInfo.testResults ?? []);
  const createdAt = run.completedAt ?? run.createdAt;
  return tests.map((test) => {
    const stepDurations: Record<string, number> = {};
    for (const step of test.steps ?? []) if (step.stepId) stepDurations[step.stepId] = step.duration;
    const status = historyStatusOf(test);
    return {
      runId: run.id,
      testId: test.testId,
      organizationId: run.organizationId,
      projectId: run.projectId,
      testRevisionId: revisions.get(test.testId) ?? null,
      branchId: run.branchId,
      branchName: run.branchName,
      triggerType: run.triggerType,
      status,
      duration: test.duration,
      attempts: test.attempts ?? 1,
      failedStepId: status === 'failed' ? (test.failedStep?.stepId ?? null) : null,
      fingerprint: fingerprintOfResult(test),
      errorMessage: status === 'failed' ? (test.errorMessage?.slice(0, maxMessageChars) ?? null) : null,
      stepDurations: toJson(stepDurations),
      commitSha: run.source.commitSha ?? null,
      ref: normalizeRef(run.source.ref),
      pullRequest: run.source.pullRequest ?? null,
      label: run.source.label ?? null,
      createdAt,
    };
  });
}

/** A result's test name: a data set row's result is titled `<test name> [<row name>]`. */
export function testNameOf(test: Pick<RunTestResult, 'name' | 'dataRow'>): string {
  const suffix = test.dataRow ? ` [${test.dataRow.name}]` : '';
  return suffix && test.name.endsWith(suffix) ? test.name.slice(0, -suffix.length) : test.name;
}

/** `refs/heads/main` and `main` name the same base. */
export function normalizeRef(ref: string | undefined): string | null {
  if (!ref) return null;
  return ref.replace(/^refs\/heads\//, '');
}
