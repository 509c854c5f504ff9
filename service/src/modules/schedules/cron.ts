import { Cron } from 'croner';
import { appError } from '../../errors.ts';

/** True when the runtime knows this IANA time zone (`Europe/Paris`, `UTC`...). */
export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Checks a cron expression and time zone, throwing a 400 that names the bad one. */
export function validateCron(cron: string, timezone: string): void {
  if (!isValidTimezone(timezone)) throw appError('TIMEZONE_INVALID', timezone);
  try {
    new Cron(cron, { paused: true, timezone });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    throw appError('CRON_INVALID', cron, reason);
  }
}

/**
 * The first tick strictly after `after`, as an ISO timestamp, or null when the expression
 * never fires again. Computing from "now" (not from the missed tick) is what collapses
 * any number of missed ticks into one firing.
 */
export function nextTick(cron: string, timezone: string, after: Date): string | null {
  const next = new Cron(cron, { paused: true, timezone }).nextRun(after);
  return next ? next.toISOString() : null;
}

/** The next `count` ticks after `after` (fewer when the expression stops firing). */
export function nextTicks(cron: string, timezone: string, after: Date, count: number): string[] {
  return new Cron(cron, { paused: true, timezone }).nextRuns(count, after).map((date) => date.toISOString());
}
