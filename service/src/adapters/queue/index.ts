/**
 * A small job queue shared by background modules (runs, webhooks, schedules).
 *
 *   const queue = await openQueue(ctx.config);      // in-process, or pg-boss with DATABASE_URL
 *   await queue.work('runs.dispatch', async (payload) => { ... });
 *   await queue.send('runs.dispatch', { runId });
 *   await queue.stop();
 *
 * Semantics: each sent job is handed to exactly one `work` handler of that name, in any
 * process attached to the same backend (at-least-once if a handler throws: the in-process
 * queue logs and drops, pg-boss retries per its queue policy). Handlers should be
 * idempotent and keep authoritative state in the database; the runs module uses jobs only
 * as wake-ups and claims runs with a conditional UPDATE.
 *
 * Backends:
 *  - `InProcessQueue` (embedded default): jobs are delivered on the next tick in this process.
 *  - `PgBossQueue` (DATABASE_URL set): pg-boss 12 in schema `pgboss`, LISTEN/NOTIFY wake-ups
 *    with 0.5 s polling as the floor; every process (API or `npm run worker`) may `work`.
 */
import type { Config } from '../../config.ts';
import { InProcessQueue } from './in-process.ts';
import { PgBossQueue } from './pg-boss.ts';

export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

export interface JobQueue {
  readonly kind: 'in-process' | 'pg-boss';
  send(name: string, payload: Record<string, unknown>): Promise<void>;
  /** Registers the handler of `name` in this process; `concurrency` jobs at a time (default 1). */
  work(name: string, handler: JobHandler, options?: { concurrency?: number }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One queue per process and backend: pg-boss with DATABASE_URL, in-process otherwise.
 * `listen: false` suits a process that only sends (no LISTEN connection is held).
 */
export async function openQueue(
  config: Pick<Config, 'databaseUrl'>,
  options: { listen?: boolean } = {},
): Promise<JobQueue> {
  if (config.databaseUrl) return PgBossQueue.start(config.databaseUrl, { listen: options.listen ?? true });
  return new InProcessQueue();
}

export { InProcessQueue, PgBossQueue };
