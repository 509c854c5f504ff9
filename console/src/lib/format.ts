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

/** An ISO timestamp as `2026-11-23 19:40:57`, in the viewer's time zone. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '—';
  return format(parseISO(iso), 'yyyy-MM-dd HH:mm:ss');
}

/** `3 minutes ago` relative to `now`. */
export function formatAgo(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '—';
  return `${formatDistanceStrict(parseISO(iso), now)} ago`;
}

/** A day key (`2026-11-23`) for grouping runs by day. */
export const dayOf = (iso: string): string => format(parseISO(iso), 'yyyy-MM-dd');

export const percent = (value: number): string => `${Math.round(value)}%`;
