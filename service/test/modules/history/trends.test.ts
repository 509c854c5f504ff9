import { describe, expect, it } from 'vitest';
import { durationTrend, stepShifts, type TrendInput } from '../../../src/modules/history/trends.ts';

/** Results newest first: `login` took `loginMs(i)` in the i-th newest; the other steps stay put. */
function results(count: number, loginMs: (index: number) => number, status = 'passed'): TrendInput[] {
  return Array.from({ length: count }, (_, index) => ({
    runId: `run-${index}`,
    status,
    duration: 1000 + loginMs(index),
    createdAt: new Date(Date.UTC(2026, 10, 28, 12) - index * 3_600_000).toISOString(),
    stepDurations: [
      ['open', 300],
      ['login', loginMs(index)],
      ['check', 120 + (index % 3) * 10],
    ],
  }));
}

describe('duration trends and step shifts', () => {
  it('names a step that went from 0.4 s to 2.1 s, and the run where it began', () => {
    const shifted = results(20, (index) => (index < 4 ? 2100 : 400));
    expect(stepShifts(shifted)).toEqual([
      {
        stepId: 'login',
        position: 2,
        before: 400,
        after: 2100,
        since: { runId: 'run-3', createdAt: shifted[3]?.createdAt },
      },
    ]);
    expect(durationTrend(shifted)).toEqual({ recentP50: 3100, earlierP50: 1400 });
  });

  it('ignores noise: small or less than doubled changes, and windows too short to judge', () => {
    expect(stepShifts(results(20, (index) => (index < 5 ? 90 : 40)))).toEqual([]);
    expect(stepShifts(results(20, (index) => (index < 5 ? 1500 : 1000)))).toEqual([]);
    expect(stepShifts(results(9, (index) => (index < 5 ? 2100 : 400)))).toEqual([]);
    expect(durationTrend(results(9, () => 400))).toBeNull();
    // Skipped results neither count nor break the window.
    expect(stepShifts(results(20, (index) => (index < 5 ? 2100 : 400), 'skipped'))).toEqual([]);
  });

  it('reads a step that a newer revision added as no shift', () => {
    const list = results(20, () => 400);
    const withNewStep = list.map((result, index) =>
      index < 5 ? { ...result, stepDurations: [...result.stepDurations, ['upload', 5000] as const] } : result,
    );
    expect(stepShifts(withNewStep)).toEqual([]);
  });
});
