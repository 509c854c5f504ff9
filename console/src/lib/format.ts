import { format, formatDistanceStrict, parseISO } from 'date-fns';

/** `1.2 s`, `850 ms`, `2 min 5 s`: a duration in milliseconds as people read it. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}

/**
 * The console's one date-time format, `2026-11-23 19:40:57 UTC`: largest unit first and
 * 24-hour, so it reads the same whatever the browser's locale and fits a table cell, followed by
 * the zone it is written in (a schedule's own times and the viewer's differ, so every time says
 * which it is). In the viewer's time zone, or in `timeZone` (a schedule's own); `weekday` puts
 * the day first (`Mon 2026-11-23 09:30:00 UTC`) where the day of the week is the point, as in a
 * cron expression's next firings.
 */
export function formatTimestamp(
  iso: string | null | undefined,
  options: { timeZone?: string | undefined; weekday?: boolean } = {},
): string {
  if (!iso) return '—';
  const date = parseISO(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (options.timeZone) {
    try {
      const parts = Object.fromEntries(
        zoned(options.timeZone)
          .formatToParts(date)
          .map((part) => [part.type, part.value]),
      );
      return `${options.weekday ? `${parts.weekday} ` : ''}${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
    } catch {
      // An unknown zone (a schedule form being typed in): the viewer's own zone instead.
    }
  }
  const zone = zoneName(date, viewerZone());
  return `${format(date, options.weekday ? 'EEE yyyy-MM-dd HH:mm:ss' : 'yyyy-MM-dd HH:mm:ss')} ${zone}`;
}

/** The viewer's time zone (the browser's), e.g. `Europe/Berlin`. */
export const viewerZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A zone's short name at an instant: `UTC`, `CET`, `GMT+9` (English names, as in the rest). */
function zoneName(date: Date, timeZone: string): string {
  const part = zoned(timeZone)
    .formatToParts(date)
    .find((item) => item.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

const zonedFormats = new Map<string, Intl.DateTimeFormat>();
/** Numeric parts in a time zone (date-fns formats in the viewer's zone only). */
function zoned(timeZone: string): Intl.DateTimeFormat {
  let known = zonedFormats.get(timeZone);
  if (!known) {
    known = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    zonedFormats.set(timeZone, known);
  }
  return known;
}

/** `3 minutes ago` relative to `now`. */
export function formatAgo(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '—';
  return `${formatDistanceStrict(parseISO(iso), now)} ago`;
}

/** A day key (`2026-11-23`) for grouping runs by day. */
export const dayOf = (iso: string): string => format(parseISO(iso), 'yyyy-MM-dd');

export const percent = (value: number): string => `${Math.round(value)}%`;
