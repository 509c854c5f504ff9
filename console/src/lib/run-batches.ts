import type { RunBatch, RunTestResult } from '@stepdeck/contract';

/** One test of a batch, by name once the run's report lists it (by id before). */
export interface BatchTest {
  testId: string;
  name: string;
  status: string | null;
}

/**
 * The tests of each batch of a split run, named from the report's results. A test repeated
 * (`repeatEach`) appears once per batch: a batch holds a test with all its copies; its status is
 * `failed` when any copy failed.
 */
export function testsOfBatch(batch: RunBatch, results: readonly RunTestResult[]): BatchTest[] {
  return batch.testIds.map((testId) => {
    const own = results.filter((result) => result.testId === testId);
    if (own.length === 0) return { testId, name: testId, status: null };
    const failed = own.find((result) => !['passed', 'skipped'].includes(result.status));
    return { testId, name: (own[0] as RunTestResult).name, status: (failed ?? own[0])?.status ?? null };
  });
}
