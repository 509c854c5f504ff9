const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `10 GiB`, `1.5 MiB`: a byte count in the largest unit that keeps it at least 1. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${shown} ${units[unit]}`;
}

export const MiB = 1024 * 1024;
