import type { StepShift } from '@stepdeck/contract';

/** A result as the trends read it: newest first, with each step's duration in document order. */
export interface TrendInput {
  runId: string;
  status: string;
  duration: number;
  createdAt: string;
  stepDurations: ReadonlyArray<readonly [stepId: string, duration: number]>;
}

/** How many latest results are "now", compared with the rest of the window. */
export const recentResults = 5;
/** A step has shifted when its median now is at least this many times its median before… */
const shiftFactor = 2;
/** …and at least this much longer (ms): 40 ms → 90 ms is noise, not news. */
const shiftMinMs = 500;

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The test's median duration over its latest 5 decided results and over the earlier ones of
 * the window (null until there are 5 of each).
 */
export function durationTrend(
  results: readonly TrendInput[],
): { recentP50: number; earlierP50: number } | null {
  const decided = results.filter((result) => result.status !== 'skipped');
  const recent = median(decided.slice(0, recentResults).map((result) => result.duration));
  const earlier = median(decided.slice(recentResults).map((result) => result.duration));
  if (decided.length < 2 * recentResults || recent === null || earlier === null) return null;
  return { recentP50: Math.round(recent), earlierP50: Math.round(earlier) };
}

/**
 * Steps whose duration moved: the median of the latest 5 results against the median before,
 * when it at least doubled and grew by 500 ms or more ("step 7: 0.4 s → 2.1 s since run X").
 * `since` is the oldest of the unbroken run of latest results where the step took longer than
 * halfway between the two medians: where the shift began. Largest growth first.
 */
export function stepShifts(results: readonly TrendInput[]): StepShift[] {
  const decided = results.filter((result) => result.status !== 'skipped');
  if (decided.length < 2 * recentResults) return [];
  const positions = new Map<string, number>();
  for (const [index, [stepId]] of (decided[0]?.stepDurations ?? []).entries())
    positions.set(stepId, index + 1);
  const durationOf = (result: TrendInput, stepId: string) =>
    result.stepDurations.find(([id]) => id === stepId)?.[1];
  const shifts: StepShift[] = [];
  for (const [stepId, position] of positions) {
    const series = (list: readonly TrendInput[]) =>
      list.flatMap((result) => {
        const value = durationOf(result, stepId);
        return value === undefined ? [] : [value];
      });
    const after = median(series(decided.slice(0, recentResults)));
    const before = median(series(decided.slice(recentResults)));
    if (after === null || before === null) continue;
    if (after < before * shiftFactor || after - before < shiftMinMs) continue;
    const midpoint = (after + before) / 2;
    let since: TrendInput | undefined;
    for (const result of decided) {
      const value = durationOf(result, stepId);
      if (value === undefined || value <= midpoint) break;
      since = result;
    }
    shifts.push({
      stepId,
      position,
      before: Math.round(before),
      after: Math.round(after),
      since: since ? { runId: since.runId, createdAt: since.createdAt } : null,
    });
  }
  return shifts.sort((a, b) => b.after - b.before - (a.after - a.before));
}
