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
