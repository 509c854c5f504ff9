import type { Db } from '../../adapters/db/index.ts';
import { fromFlag } from '../../adapters/db/index.ts';
import type { JobQueue } from '../../adapters/queue/index.ts';
import type { Clock } from '../../clock.ts';
import { AppError } from '../../errors.ts';
import { organizationStanding } from '../accounts/public.ts';
import { hasActiveRunOfSchedule } from '../runs/public.ts';
import {
  beginFiring,
  findSchedulesRow,
  recordDropped,
  recordFailed,
  recordSkipped,
  recordStarted,
} from './repository.ts';
import { type StartScheduledRun, scheduledRunRequest } from './service.ts';

/** The queue job that performs one claimed firing (sent by the instance that claimed the tick). */
export const fireJob = 'schedules.fire';

export interface FiringJob {
  scheduleId: string;
  /** The tick (ISO) the firing belongs to; informative, the firing row is the key. */
  tickAt: string;
  /** The `scheduleFirings` row: what makes a redelivered job harmless. */
  firingId: string;
}

export type FiringOutcome = 'started' | 'skipped' | 'failed';

type Log = {
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
};

export function parseFiringJob(payload: Record<string, unknown>): FiringJob | undefined {
  const { scheduleId, tickAt, firingId } = payload;
  if (typeof scheduleId !== 'string' || typeof tickAt !== 'string' || typeof firingId !== 'string') {
    return undefined;
  }
  return { scheduleId, tickAt, firingId };
}

export interface FirerOptions {
  db: Db;
  clock: Clock;
  startRun: StartScheduledRun;
  log: Log;
}

/**
 * Performs claimed firings: the `schedules.fire` handler. Idempotent per firing row: it first
 * moves the row from `claimed` to `firing` with a conditional UPDATE, so of several deliveries
 * of one job (pg-boss retries, a takeover re-sending it) only one fires; a firing that is
 * already firing or has an outcome is left alone.
 */
export class Firer {
  private readonly options: FirerOptions;

  constructor(options: FirerOptions) {
    this.options = options;
  }

  /** The outcome, or `undefined` when this delivery had nothing to do. */
  async perform(job: FiringJob): Promise<FiringOutcome | undefined> {
    const { db } = this.options;
    const nowIso = this.options.clock.now().toISOString();
    if (!(await beginFiring(db, job.firingId, nowIso))) return undefined;
    const schedule = await findSchedulesRow(db, job.scheduleId);
    // Deleted meanwhile: its firings went with it (cascade), nothing to record.
    if (!schedule) return undefined;
    if (!fromFlag(schedule.enabled)) {
      await recordDropped(db, job.firingId, 'The schedule was disabled before the firing ran');
      return 'skipped';
    }
    // A lapsed or suspended organization's schedules keep their ticks but start nothing; the
    // next tick after a renewal fires again.
    const standing = await organizationStanding(db, schedule.organizationId);
    const idle = !standing
      ? 'The organization no longer exists'
      : standing.suspended
        ? 'The organization is suspended'
        : !standing.subscriptionActive
          ? "The organization's subscription is not active"
          : undefined;
    if (idle) {
      await recordSkipped(db, schedule.id, job.firingId, idle, nowIso);
      return 'skipped';
    }
    if (await hasActiveRunOfSchedule(db, schedule.id)) {
      await recordSkipped(
        db,
        schedule.id,
        job.firingId,
        'The previous run of this schedule is still active',
        nowIso,
      );
      return 'skipped';
    }
    try {
      const started = await this.options.startRun(scheduledRunRequest(schedule));
      await recordStarted(db, schedule.id, job.firingId, started.runId, nowIso);
      return 'started';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A run of these tests started elsewhere (409) also means "still busy": skip, not fail.
      if (error instanceof AppError && error.statusCode === 409) {
        await recordSkipped(db, schedule.id, job.firingId, message, nowIso);
        return 'skipped';
      }
      if (!(error instanceof AppError)) {
        this.options.log.error({ err: error, scheduleId: schedule.id }, 'scheduled run failed to start');
      }
      await recordFailed(db, schedule.id, job.firingId, message, nowIso);
      return 'failed';
    }
  }
}

/**
 * Hands a claimed firing to whoever performs it: the outcome when performed here and now, or
 * `queued` once the job is sent.
 */
export type FiringDispatch = (job: FiringJob) => Promise<FiringOutcome | 'queued' | undefined>;

/** Performs the firing in the claiming pass (tests and tools that drive a scheduler by hand). */
export function inlineDispatch(firer: Firer): FiringDispatch {
  return (job) => firer.perform(job);
}

/** Sends the firing as a `schedules.fire` job: any process working that queue performs it. */
export function queueDispatch(queue: Pick<JobQueue, 'send'>): FiringDispatch {
  return async (job) => {
    await queue.send(fireJob, { ...job });
    return 'queued';
  };
}

/**
 * Registers this process's `schedules.fire` handler. The returned function waits for the
 * firings in progress; call it after stopping the queue (no new deliveries).
 */
export async function workFirings(
  queue: Pick<JobQueue, 'work'>,
  firer: Pick<Firer, 'perform'>,
  log: Log,
  options: { concurrency?: number } = {},
): Promise<() => Promise<void>> {
  const inFlight = new Set<Promise<unknown>>();
  await queue.work(
    fireJob,
    async (payload) => {
      const job = parseFiringJob(payload);
      if (!job) {
        log.warn({ payload }, 'ignored a malformed schedules.fire job');
        return;
      }
      const performing = firer.perform(job);
      inFlight.add(performing);
      try {
        await performing;
      } catch (error) {
        // The firing stays `firing`/`claimed`; the stale-claim takeover finishes it.
        log.error({ err: error, scheduleId: job.scheduleId }, 'schedule firing failed');
      } finally {
        inFlight.delete(performing);
      }
    },
    { concurrency: options.concurrency ?? 4 },
  );
  return async () => {
    await Promise.allSettled([...inFlight]);
  };
}
