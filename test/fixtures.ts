import type { RunTestResult, TestRunDetail } from '@stepdeck/contract';

export const base = 'http://stepdeck.test';
export const apiKey = `sd_${'ab12'.repeat(12)}`;
export const projectId = '11111111-1111-4111-8111-111111111111';
export const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export function runDetail(
  id: string,
  status: TestRunDetail['status'],
  tests: Array<Partial<RunTestResult> & { name: string; status: string }> = [],
): { data: TestRunDetail } {
  const terminal = status === 'completed' || status === 'failed';
  const results: RunTestResult[] = tests.map((test, index) => ({
    testId: uuid(900 + index),
    duration: 1200,
    errorMessage: null,
    errorLocation: null,
    ...test,
  }));
  const stats = {
    passed: results.filter((test) => test.status === 'passed').length,
    failed: results.filter((test) => test.status === 'failed').length,
    skipped: results.filter((test) => test.status === 'skipped').length,
    total: results.length,
  };
  return {
    data: {
      id,
      name: `run ${id}`,
      status,
      testId: null,
      testRevisionId: null,
      branchId: uuid(2),
      testName: null,
      branchName: 'main',
      scheduleType: null,
      createdAt: '2025-01-01T00:00:00.000Z',
      startedAt: '2025-01-01T00:00:01.000Z',
      completedAt: terminal ? '2025-01-01T00:00:05.000Z' : null,
      duration: terminal ? 4000 : null,
      projectId,
      scheduleId: null,
      config: {},
      vars: null,
      parameters: null,
      metadata: null,
      stats: terminal ? stats : null,
      cancelledAt: status === 'cancelled' ? '2025-01-01T00:00:03.000Z' : null,
      report: terminal
        ? {
            status,
            testName: null,
            runName: `run ${id}`,
            runId: id,
            duration: 4000,
            completedAt: '2025-01-01T00:00:05.000Z',
            branchId: uuid(2),
            branchName: 'main',
            scheduleName: null,
            runTypeInfo: { type: 'directory', name: 'suite', testResults: results, stats, runnerError: null },
          }
        : null,
    },
  };
}
