import { describe, expect, it } from 'vitest';
import { formatAgo, formatDuration, formatTimestamp, percent } from './format.ts';

describe('formatDuration', () => {
  it('reads milliseconds, seconds and minutes the way people say them', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
  });
  it('shows a dash for what is not known yet', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(undefined)).toBe('—');
  });
});

describe('formatAgo and percent', () => {
  it('says how long ago, from a fixed now', () => {
    expect(formatAgo('2026-01-01T10:00:00.000Z', new Date('2026-01-01T10:03:00.000Z'))).toBe('3 minutes ago');
    expect(formatAgo(null)).toBe('—');
    expect(percent(66.6)).toBe('67%');
  });
});

describe('formatTimestamp', () => {
  it('writes every date-time the same way, labelled with its zone, in a given time zone too', () => {
    expect(formatTimestamp('2026-11-25T08:40:17.000Z', { timeZone: 'UTC' })).toBe('2026-11-25 08:40:17 UTC');
    expect(formatTimestamp('2026-11-25T23:05:09.000Z', { timeZone: 'Asia/Tokyo' })).toBe(
      '2026-11-26 08:05:09 GMT+9',
    );
    expect(formatTimestamp('2026-11-25T00:00:00.000Z', { timeZone: 'UTC' })).toBe('2026-11-25 00:00:00 UTC');
    expect(formatTimestamp('2026-11-25T23:05:09.000Z', { timeZone: 'Asia/Tokyo', weekday: true })).toBe(
      'Thu 2026-11-26 08:05:09 GMT+9',
    );
    expect(formatTimestamp('2026-07-01T12:00:00.000Z', { timeZone: 'Europe/Berlin' })).toBe(
      '2026-07-01 14:00:00 GMT+2',
    );
    // The viewer's own zone is named too.
    expect(formatTimestamp('2026-11-25T08:40:17.000Z')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
    expect(formatTimestamp(null)).toBe('—');
  });
});
