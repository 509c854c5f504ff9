import { type JobQueue, openQueue } from '../../adapters/queue/index.ts';
import type { AppContext } from '../../context.ts';

export const dispatchJob = 'runs.dispatch';

/**
 * Per-app state of the runs module: the local runner (when this process runs background
 * work), the aborts of the runs it executes, and the queue used to wake remote runners.
 */
export interface RunsRuntime {
  /** Set while a local runner is started: claims and executes pending runs. */
  pump?: () => void;
  aborts: Map<string, AbortController>;
  queue?: Promise<JobQueue>;
  /** Set when the app closes: no queue is opened any more, wake-ups are dropped. */
  closed: boolean;
  /** Deferred run.finished emissions (start-up recovery), flushed or dropped on close. */
  deferred: Map<NodeJS.Timeout, () => Promise<void>>;
}

const runtimes = new WeakMap<AppContext, RunsRuntime>();

export function runtimeOf(ctx: AppContext): RunsRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    runtime = { aborts: new Map(), closed: false, deferred: new Map() };
    runtimes.set(ctx, runtime);
  }
  return runtime;
}

/** The process's queue; a process that only wakes runners opens it without a listener. */
export function queueOf(ctx: AppContext, options: { listen?: boolean } = {}): Promise<JobQueue> {
  const runtime = runtimeOf(ctx);
  if (runtime.closed) return Promise.reject(new Error('the runs queue is closed'));
  runtime.queue ??= openQueue(ctx.config, { listen: options.listen ?? false });
  return runtime.queue;
}

/**
 * Closes the process's queue for good (app close): a wake-up sent later (a schedule firing
 * during shutdown) is dropped instead of opening a new pg-boss pool nobody would stop; the
 * run stays `pending` and is dispatched by the next runner that starts.
 */
export async function closeQueue(ctx: AppContext): Promise<void> {
  const runtime = runtimeOf(ctx);
  runtime.closed = true;
  const queue = runtime.queue;
  runtime.queue = undefined;
  if (!queue) return;
  const opened = await queue.catch(() => undefined);
  await opened?.stop();
}

/** Runs `emit` after `ms` unless the app closes first (then {@link flushDeferred} runs it). */
export function defer(ctx: AppContext, ms: number, emit: () => Promise<void>): void {
  const runtime = runtimeOf(ctx);
  const timer = setTimeout(() => {
    runtime.deferred.delete(timer);
    void emit();
  }, ms);
  timer.unref();
  runtime.deferred.set(timer, emit);
}

/** Emits the deferred work now (while the database is still open). */
export async function flushDeferred(ctx: AppContext): Promise<void> {
  const runtime = runtimeOf(ctx);
  const pending = [...runtime.deferred];
  runtime.deferred.clear();
  for (const [timer, emit] of pending) {
    clearTimeout(timer);
    await emit();
  }
}

/** Tells a runner that there is work: the local one directly, remote ones through pg-boss. */
export async function wakeRunners(ctx: AppContext): Promise<void> {
  const runtime = runtimeOf(ctx);
  runtime.pump?.();
  if (ctx.config.databaseUrl && !runtime.closed) {
    try {
      await (await queueOf(ctx)).send(dispatchJob, {});
    } catch (error) {
      // Runners also poll; a lost wake-up only delays the run.
      ctx.log.warn({ err: error }, 'could not publish a run wake-up');
    }
  }
}
