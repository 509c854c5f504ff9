import { describe, expect, it } from 'vitest';
import { safeNext } from './safe-next.ts';

describe('safeNext', () => {
  it('returns to pages inside the console only', () => {
    expect(safeNext('/projects/p/runs/r?branch=b')).toBe('/projects/p/runs/r?branch=b');
    expect(safeNext('//evil.example/x')).toBe('/');
    expect(safeNext('https://evil.example/')).toBe('/');
    expect(safeNext('/sign-in?next=/x')).toBe('/');
    expect(safeNext(null)).toBe('/');
  });
});
