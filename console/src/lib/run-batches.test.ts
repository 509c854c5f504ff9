import type { RunBatch, RunTestResult } from '@stepdeck/contract';
import { describe, expect, it } from 'vitest';
import { testsOfBatch } from './run-batches.ts';

const batch = (testIds: string[]): RunBatch => ({
  position: 0,
  status: 'done',
  testIds,
  worker: 'host:1:abc#0',
  attempts: 1,
  expectedMs: 1000,
  startedAt: null,
  completedAt: null,
  durationMs: null,
});
const result = (testId: string, name: string, status: string): RunTestResult => ({
  testId,
  name,
  status,
  duration: 10,
  errorMessage: null,
  errorLocation: null,
});

describe('testsOfBatch', () => {
  it("names a batch's tests from the report, failed when any repeated copy failed", () => {
    const results = [
      result('a', 'Alpha', 'passed'),
      result('b', 'Beta', 'passed'),
      result('b', 'Beta', 'failed'),
    ];
    expect(testsOfBatch(batch(['b', 'a']), results)).toEqual([
      { testId: 'b', name: 'Beta', status: 'failed' },
      { testId: 'a', name: 'Alpha', status: 'passed' },
    ]);
  });

  it('keeps the id of a test the report does not list yet (the run is still going)', () => {
    expect(testsOfBatch(batch(['c']), [])).toEqual([{ testId: 'c', name: 'c', status: null }]);
  });
});
