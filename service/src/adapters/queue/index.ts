/**
 * A small job queue shared by background modules (runs, webhooks, schedules).
 *
 *   const queue = await ctx.queue.open();   // the process's one queue: in-process, or pg-boss with DATABASE_URL
 *   await queue.work('runs.dispatch', async (payload) => { ... });
 *   await queue.send('runs.dispatch', { runId });
 *   await queue.offWork('runs.dispatch');   // a module stopping
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

export interface QueueLog {
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export interface JobQueue {
  readonly kind: 'in-process' | 'pg-boss';
  send(name: string, payload: Record<string, unknown>): Promise<void>;
  /** Registers the handler of `name` in this process; `concurrency` jobs at a time (default 1). */
  work(name: string, handler: JobHandler, options?: { concurrency?: number }): Promise<void>;
  /** Stops taking jobs of `name` here and waits for the ones being handled. */
  offWork(name: string): Promise<void>;
  /** Resolves when the backend answers (readiness). */
  ping(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A queue backend: pg-boss with DATABASE_URL, in-process otherwise. `listen: false` suits a
 * process that only sends (no LISTEN connection is held). Services use {@link ProcessQueue}.
 */
export async function openQueue(
  config: Pick<Config, 'databaseUrl'>,
  options: { listen?: boolean; log: QueueLog },
): Promise<JobQueue> {
  if (config.databaseUrl)
    return PgBossQueue.start(config.databaseUrl, { listen: options.listen ?? true, log: options.log });
  return new InProcessQueue(options.log);
}

/**
 * The one queue of a process, shared by runs, webhooks and schedules: opened on first use
 * (an API process that never wakes a runner holds no pg-boss pool), at most once at a time
 * (a failed open is not cached, the next use tries again), and closed once with the app.
 * After close, `open` rejects: a wake-up sent during shutdown is dropped instead of opening
 * a pool nobody would stop (the run stays `pending` for the next runner).
 */
export class ProcessQueue {
  private readonly config: Pick<Config, 'databaseUrl'>;
  private readonly listen: boolean;
  private readonly log: QueueLog;
  private opening: Promise<JobQueue> | undefined;
  private closed = false;

  constructor(config: Pick<Config, 'databaseUrl'>, options: { listen: boolean; log: QueueLog }) {
    this.config = config;
    this.listen = options.listen;
    this.log = options.log;
  }

  get kind(): JobQueue['kind'] {
    return this.config.databaseUrl ? 'pg-boss' : 'in-process';
  }

  /** True once opened (readiness checks an unopened queue by opening it). */
  get isOpen(): boolean {
    return this.opening !== undefined;
  }

  /**
   * The queue, opened on first use. A first use that will `work` jobs opens it listening
   * even where background work is off (tests start one module's work by hand).
   */
  open(use: 'send' | 'work' = 'send'): Promise<JobQueue> {
    if (this.closed) return Promise.reject(new Error('the job queue is closed'));
    if (!this.opening) {
      const listen = this.listen || use === 'work';
      const opening = openQueue(this.config, { listen, log: this.log });
      this.opening = opening;
      opening.catch((error: unknown) => {
        this.log.error({ err: error }, 'could not open the job queue');
        if (this.opening === opening) this.opening = undefined;
      });
    }
    return this.opening;
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    this.opening = undefined;
    if (!opening) return;
    const queue = await opening.catch(() => undefined);
    await queue?.stop();
  }
}

export { InProcessQueue, PgBossQueue };
