import type { TestRunDetail } from '@stepdeck/contract';
import { formatDuration } from './report/markdown.ts';

/** CircleCI kills a job after 10 minutes without output; other CIs have such limits too. */
export const progressEveryMs = 60_000;

/**
 * The waiter's `onPoll` for the CLI: a line when a run's status or counts change, and at least
 * one every minute while nothing does (status, elapsed time, counts when the service has them),
 * so a no-output timeout never kills a job that is only waiting.
 */
export function progressReporter(log: (line: string) => void, now: () => number = Date.now) {
  const start = now();
  let last = '';
  let lastAt = Number.NEGATIVE_INFINITY;
  return (runs: readonly TestRunDetail[]) => {
    const line = runs
      .map((run) => {
        const counts = run.stats
          ? ` (${run.stats.passed} passed, ${run.stats.failed} failed of ${run.stats.total})`
          : '';
        return `${run.id.slice(0, 8)} ${run.status}${counts}`;
      })
      .join(', ');
    const at = now();
    if (line === last && at - lastAt < progressEveryMs) return;
    log(`[${new Date(at).toISOString()}] ${line}, ${formatDuration(at - start)} elapsed`);
    last = line;
    lastAt = at;
  };
}
