import type { TestHistorySummary } from '@stepdeck/contract';

/** The fields of a result the summary reads. */
export interface SummaryInput {
  runId: string;
  status: string;
  duration: number;
  testRevisionId: string | null;
  commitSha: string | null;
  createdAt: string;
}

/** The `p`-th percentile (nearest rank) of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? null;
}

/**
 * Flaky results among `results`: those passed on a retry (`flaky`), and the failures whose
 * test revision and commit also passed in another result (both outcomes on the same code).
 * Results without a commit are only compared by revision when neither has one.
 */
export function flakyCount(results: readonly SummaryInput[]): number {
  const passedOn = new Set<string>();
  const key = (result: SummaryInput) => `${result.testRevisionId ?? '-'}@${result.commitSha ?? '-'}`;
  for (const result of results)
    if (result.status === 'passed' || result.status === 'flaky') passedOn.add(key(result));
  let count = 0;
  for (const result of results) {
    if (result.status === 'flaky') count++;
    else if (result.status === 'failed' && passedOn.has(key(result))) count++;
  }
  return count;
}

/** Pass rate, flake rate, failing since and duration percentiles of results, newest first. */
export function summarize(
  results: readonly SummaryInput[],
  window: number,
): Omit<TestHistorySummary, 'durationTrend' | 'stepShifts'> {
  const decided = results.filter((result) => result.status !== 'skipped');
  const passed = decided.filter((result) => result.status === 'passed' || result.status === 'flaky').length;
  let streakStart: SummaryInput | undefined;
  for (const result of decided) {
    if (result.status !== 'failed') break;
    streakStart = result;
  }
  const durations = decided.map((result) => result.duration).sort((a, b) => a - b);
  return {
    window,
    runs: results.length,
    passRate: decided.length ? passed / decided.length : null,
    flakeRate: decided.length ? flakyCount(decided) / decided.length : null,
    failingSince: streakStart
      ? { runId: streakStart.runId, createdAt: streakStart.createdAt, commitSha: streakStart.commitSha }
      : null,
    durationP50: percentile(durations, 50),
    durationP95: percentile(durations, 95),
  };
}
