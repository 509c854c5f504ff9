/**
 * A test with a data set (or `repeatEach`) has several results in one run, one per row; the
 * run's per-test row (`runTests`) and the test's history keep one verdict per test and run, the
 * worst of them: one failing row fails the test there, as it fails the run.
 */

const rank = (result: { status: string; flaky?: boolean }) => {
  if (result.status === 'failed' || result.status === 'timedOut') return 3;
  if (result.status === 'flaky' || result.flaky) return 2;
  if (result.status === 'passed') return 1;
  return 0;
};

/** One result per test id, in first-seen order: the worst, the earliest of equals. */
export function worstPerTest<T extends { testId: string; status: string; flaky?: boolean }>(
  results: readonly T[],
): T[] {
  const worst = new Map<string, T>();
  for (const result of results) {
    const kept = worst.get(result.testId);
    if (!kept || rank(result) > rank(kept)) worst.set(result.testId, result);
  }
  return [...worst.values()];
}
