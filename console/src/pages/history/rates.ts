/** A rate of 0..1 as a whole percentage, or a dash without results. */
export const rate = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : `${Math.round(value * 100)}%`;
