import type { RunArtifact, RunTestResult, TestRun } from '@stepdeck/contract';
import { describe, expect, it } from 'vitest';
import {
  artifactsOfTest,
  failedFirst,
  isActive,
  parseMetadata,
  refreshInterval,
  retriesOf,
  runsPerDay,
  testLeaders,
  triggerLabel,
} from './run-state.ts';

const result = (name: string, status: string, extra: Partial<RunTestResult> = {}): RunTestResult => ({
  testId: name,
  name,
  status,
  duration: 100,
  errorMessage: null,
  errorLocation: null,
  ...extra,
});

describe('run state', () => {
  it('keeps polling only while a run is active', () => {
    expect(isActive('pending')).toBe(true);
    expect(isActive('running')).toBe(true);
    expect(isActive('failed')).toBe(false);
    expect(refreshInterval(['completed', 'queued'])).toBe(1000);
    expect(refreshInterval(['completed', 'cancelled'])).toBe(false);
  });

  it('puts failed tests first, then flaky, keeping the report order otherwise', () => {
    const ordered = failedFirst([
      result('a', 'passed'),
      result('b', 'failed'),
      result('c', 'passed', { flaky: true }),
      result('d', 'timedOut'),
    ]);
    expect(ordered.map((test) => test.name)).toEqual(['b', 'd', 'c', 'a']);
    expect(retriesOf(result('x', 'failed', { attempts: 3 }))).toBe(2);
    expect(retriesOf(result('x', 'passed'))).toBe(0);
  });

  it('names who started a run', () => {
    expect(triggerLabel(parseMetadata({ trigger: { type: 'apiKey', name: 'ci' } }))).toBe('API key “ci”');
    expect(triggerLabel(parseMetadata({ trigger: { type: 'manual', name: 'ada@example.com' } }))).toBe(
      'ada@example.com (console)',
    );
    expect(triggerLabel(parseMetadata({ trigger: { type: 'schedule' } }), 'nightly')).toBe(
      'schedule “nightly”',
    );
    expect(triggerLabel(parseMetadata(null))).toBe('unknown');
  });

  it("finds a test's trace, screenshots and videos among the run's artifacts", () => {
    const artifact = (key: string, type: string, testName?: string): RunArtifact => ({
      key,
      label: key,
      type,
      url: `/blobs/${key}`,
      ...(testName ? { testName } : {}),
    });
    const own = artifactsOfTest(
      [
        artifact('test-run.log', 'log'),
        artifact('tests/a/trace.zip', 'trace', 'a'),
        artifact('tests/a/test-failed-1.png', 'image', 'a'),
        artifact('tests/b/trace.zip', 'trace', 'b'),
        artifact('tests/a/video.webm', 'video', 'a'),
      ],
      'a',
    );
    expect(own.trace?.key).toBe('tests/a/trace.zip');
    expect(own.images.map((image) => image.key)).toEqual(['tests/a/test-failed-1.png']);
    expect(own.videos.map((video) => video.key)).toEqual(['tests/a/video.webm']);
  });

  it('ranks the most failing and the slowest tests over several runs', () => {
    const loginId = '0b8f4a52-6c1e-4f3e-9d57-2a1c7b9e0f11';
    const leaders = testLeaders([
      {
        testResults: [
          result('login', 'failed', { duration: 300, testId: loginId }),
          result('cart', 'passed', { duration: 900 }),
        ],
      },
      {
        testResults: [
          result('login', 'failed', { duration: 100, testId: loginId }),
          result('cart', 'failed', { duration: 1100 }),
        ],
      },
    ]);
    // A stored test's id comes along (the dashboard links to it); a name-only one has none.
    expect(leaders.failing).toEqual([
      { name: 'login', testId: loginId, failures: 2, runs: 2 },
      { name: 'cart', testId: undefined, failures: 1, runs: 2 },
    ]);
    expect(leaders.slowest[0]).toEqual({ name: 'cart', testId: undefined, avgMs: 1000, runs: 2 });
  });

  it('groups runs per day with failures and mean duration', () => {
    const run = (createdAt: string, status: TestRun['status'], duration: number | null) =>
      ({ createdAt, status, duration }) as TestRun;
    const days = runsPerDay(
      [
        run('2026-01-02T10:00:00.000Z', 'failed', 2000),
        run('2026-01-01T10:00:00.000Z', 'completed', 1000),
        run('2026-01-02T11:00:00.000Z', 'completed', 4000),
        run('2026-01-02T12:00:00.000Z', 'running', null),
      ],
      (iso) => iso.slice(0, 10),
    );
    expect(days).toEqual([
      { day: '2026-01-01', total: 1, failed: 0, avgDurationMs: 1000 },
      { day: '2026-01-02', total: 3, failed: 1, avgDurationMs: 3000 },
    ]);
  });
});
