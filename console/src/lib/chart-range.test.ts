import { describe, expect, it } from 'vitest';
import { countAxisRange, dayTicks, timeAxisRange } from './chart-range.ts';

const day = 86_400;
const nov23 = Date.UTC(2026, 10, 23) / 1000;

describe('timeAxisRange', () => {
  it('spans one day around a single day of runs (not years)', () => {
    expect(timeAxisRange([nov23], day)).toEqual([nov23 - day / 2, nov23 + day / 2]);
  });
  it('pads the first and last bucket by half a bucket, whatever the order', () => {
    expect(timeAxisRange([nov23, nov23 - 3 * day, nov23 - day], day)).toEqual([
      nov23 - 3 * day - day / 2,
      nov23 + day / 2,
    ]);
  });
  it('ignores missing values, and shows the last bucket when there is no data', () => {
    expect(timeAxisRange([Number.NaN, nov23], day)).toEqual([nov23 - day / 2, nov23 + day / 2]);
    const [min, max] = timeAxisRange([], day);
    expect(max - min).toBe(day);
    expect(Math.abs(max - Date.now() / 1000)).toBeLessThan(60);
  });
});

describe('dayTicks and countAxisRange', () => {
  it('puts one tick on each day of the buckets, including days without runs', () => {
    const noon = nov23 + day / 2;
    expect(dayTicks([noon + 2 * day, noon], 10)).toEqual([noon, noon + day, noon + 2 * day]);
  });
  it('ticks every n-th day when the days would crowd the axis', () => {
    const noon = nov23 + day / 2;
    const ticks = dayTicks([noon, noon + 29 * day], 10);
    expect(ticks).toHaveLength(10);
    expect(ticks[1]).toBe(noon + 3 * day);
    expect(dayTicks([], 10)).toEqual([]);
  });
  it('starts a count axis at 0', () => {
    expect(countAxisRange(2)).toEqual([0, 3]);
    expect(countAxisRange(0)).toEqual([0, 2]);
    expect(countAxisRange(40)).toEqual([0, 44]);
  });
});
