import { describe, expect, it } from 'vitest';
import { timeAxisRange } from './chart-range.ts';

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
