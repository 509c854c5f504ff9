/**
 * The x range of a time chart whose points are buckets of `bucketSeconds` (timestamps in
 * seconds, as uPlot's time scale expects): from half a bucket before the first point to half a
 * bucket after the last, so one day of runs shows that day and not uPlot's default of years.
 */
export function timeAxisRange(xs: ArrayLike<number>, bucketSeconds: number): [number, number] {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < xs.length; index += 1) {
    const x = xs[index] as number;
    if (!Number.isFinite(x)) continue;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min > max) {
    // No data: the bucket ending now.
    const now = Math.floor(Date.now() / 1000);
    return [now - bucketSeconds, now];
  }
  const pad = bucketSeconds / 2;
  return [min - pad, max + pad];
}

/**
 * Where a chart of daily buckets puts its x ticks: on the buckets themselves, one a day, or every
 * n-th day when more than `maxTicks` days would crowd the axis (never between days, never hours).
 */
export function dayTicks(xs: ArrayLike<number>, maxTicks: number): number[] {
  const days = Array.from(xs)
    .filter((x) => Number.isFinite(x))
    .sort((a, b) => a - b);
  if (days.length === 0) return [];
  const first = days[0] as number;
  const last = days[days.length - 1] as number;
  const span = Math.round((last - first) / 86_400) + 1;
  const step = Math.max(1, Math.ceil(span / maxTicks));
  const ticks: number[] = [];
  for (let index = 0; index < span; index += step) ticks.push(first + index * 86_400);
  return ticks;
}

/** A count axis from 0 to a little above the largest value (at least 1), so bars and lines compare. */
export function countAxisRange(max: number | null | undefined): [number, number] {
  const top = Math.max(1, max ?? 0);
  return [0, top <= 5 ? top + 1 : Math.ceil(top * 1.1)];
}
