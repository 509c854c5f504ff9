import type { TriageClass } from '@stepdeck/contract';
import type { StepdeckClient } from './client.ts';
import type { Outcome } from './inputs.ts';
import { isFailedTest, type Results } from './results.ts';

/**
 * Each failed test of the results classed by the service (`GET /v1/test-runs/:runId/triage`):
 * new, known (failing the same way on the base branch), flaky or quarantined. A service
 * without triage, or a failing lookup, leaves the results as they were (one line logged).
 */
export async function withTriage(
  client: Pick<StepdeckClient, 'triage'>,
  results: Results,
  log: (message: string) => void,
): Promise<Results> {
  const runIds = [...new Set(results.tests.filter(isFailedTest).map((test) => test.runId))];
  if (runIds.length === 0) return results;
  const classes = new Map<string, { triage: TriageClass; reason: string | null }>();
  try {
    for (const runId of runIds) {
      const triage = await client.triage(runId);
      for (const failure of triage.failures)
        classes.set(`${runId}/${failure.testId}`, {
          triage: failure.triage,
          reason: failure.quarantine?.reason ?? null,
        });
    }
  } catch (error) {
    log(`Failures not triaged (new, known, flaky, quarantined): ${(error as Error).message}`);
    return results;
  }
  return {
    ...results,
    tests: results.tests.map((test) => {
      const found = classes.get(`${test.runId}/${test.testId}`);
      return found && isFailedTest(test)
        ? { ...test, triage: found.triage, ...(found.reason ? { quarantineReason: found.reason } : {}) }
        : test;
    }),
  };
}

/** Failed tests whose test is in quarantine: reported, but not failing the step. */
export const quarantinedFailures = (results: Results) =>
  results.tests.filter((test) => isFailedTest(test) && test.triage === 'quarantined');

/** Failed tests not known to fail elsewhere (without triage, every failure counts as new). */
export const newFailures = (results: Results) =>
  results.tests.filter((test) => isFailedTest(test) && (test.triage === undefined || test.triage === 'new'));

/**
 * The outcome `fail-on` judges: a run failed only by quarantined tests counts as passed (the
 * run's own status, the report and the webhooks still say failed).
 */
export function gatingStatus(results: Results): Outcome {
  if (results.status !== 'failed') return results.status;
  const failed = results.tests.filter(isFailedTest);
  return failed.length > 0 && failed.every((test) => test.triage === 'quarantined') ? 'passed' : 'failed';
}

/** `Quarantined, not failing the step: checkout (payment sandbox down)`, or nothing. */
export function quarantineLine(results: Results): string | undefined {
  const quarantined = quarantinedFailures(results);
  if (quarantined.length === 0) return undefined;
  const names = quarantined.map((test) =>
    test.quarantineReason ? `${test.name} (${test.quarantineReason})` : test.name,
  );
  return `Quarantined, not failing the step: ${names.join(', ')}`;
}
