import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { AppError } from '../../errors.ts';
import { nextTick } from './cron.ts';
import {
  claimTick,
  dueSchedules,
  earliestNextRun,
  hasActiveRun,
  pruneFirings,
  recordFailed,
  recordSkipped,
  recordStarted,
  runCreatedSince,
  type ScheduleRow,
  staleClaims,
  takeOverClaim,
} from './repository.ts';

/** A claim without an outcome after this long belongs to an instance that died mid-firing. */
export const staleClaimMs = 2 * 60 * 1000;
/** Firing history kept per schedule (an every-second cron records 86,400 a day). */
export const firingRetentionMs = 7 * 24 * 60 * 60 * 1000;
const pruneEveryMs = 60 * 60 * 1000;

import { type StartScheduledRun, scheduledRunRequest } from './service.ts';

export interface SchedulerOptions {
  db: Db;
  clock: Clock;
  startRun: StartScheduledRun;
  log: { warn(obj: object | string, msg?: string): void; error(obj: object | string, msg?: string): void };
  /** Longest sleep between two looks at the table (other instances may add schedules). */
  pollMs?: number;
}

/** The running scheduler of each app (keyed by its AppContext); routes wake it after changes. */
export const schedulers = new WeakMap<object, Scheduler>();

export type FiringOutcome = 'started' | 'skipped' | 'failed';

/**
 * Fires due schedules. State lives in the database only: each schedule's `nextRunAt` is the
 * tick to fire, and firing claims it with a conditional UPDATE (`... WHERE nextRunAt =
 * <tick seen>`) that also moves it to the next tick after *now*. So a restart after missed
 * ticks fires once, and of several instances on one PostgreSQL database one fires each tick.
 */
export class Scheduler {
  private readonly options: SchedulerOptions;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeRequested = false;
  private lastPrune = 0;

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.pollMs = options.pollMs ?? 1000;
  }

  start(): void {
    this.stopped = false;
    this.arm(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** A schedule changed here: look again now instead of at the end of the current sleep. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.arm(0);
  }

  /** One pass: fires every schedule due at the clock's now. Exposed for tests and tools. */
  async fireDue(): Promise<Array<{ scheduleId: string; outcome: FiringOutcome }>> {
    const now = this.options.clock.now();
    const results: Array<{ scheduleId: string; outcome: FiringOutcome }> = [];
    const stale = await staleClaims(
      this.options.db,
      new Date(now.getTime() - staleClaimMs).toISOString(),
      100,
    );
    for (const claim of stale) {
      if (!(await takeOverClaim(this.options.db, claim.firingId, claim.firingFiredAt, now.toISOString())))
        continue;
      // The dead instance may have created the run before dying: adopt it rather than start another.
      const made = await runCreatedSince(this.options.db, claim.id, claim.firingFiredAt);
      if (made) {
        await recordStarted(this.options.db, claim.id, claim.firingId, made.id, now.toISOString());
        results.push({ scheduleId: claim.id, outcome: 'started' });
      } else {
        results.push({ scheduleId: claim.id, outcome: await this.run(claim, claim.firingId, now) });
      }
    }
    const due = await dueSchedules(this.options.db, now.toISOString(), 100);
    for (const schedule of due) {
      const outcome = await this.fire(schedule, now);
      if (outcome) results.push({ scheduleId: schedule.id, outcome });
    }
    if (now.getTime() - this.lastPrune >= pruneEveryMs) {
      this.lastPrune = now.getTime();
      await pruneFirings(this.options.db, new Date(now.getTime() - firingRetentionMs).toISOString());
    }
    return results;
  }

  private async fire(schedule: ScheduleRow, now: Date): Promise<FiringOutcome | undefined> {
    const { db } = this.options;
    const tickAt = schedule.nextRunAt;
    if (!tickAt) return undefined;
    const nowIso = now.toISOString();
    let next: string | null;
    try {
      next = nextTick(schedule.cron, schedule.timezone, now);
    } catch (error) {
      next = null;
      this.options.log.error({ err: error, scheduleId: schedule.id }, 'schedule cron no longer valid');
    }
    const firingId = await claimTick(db, { id: schedule.id, tickAt }, next, nowIso);
    if (!firingId) return undefined;
    return this.run(schedule, firingId, now);
  }

  /** Runs a claimed firing: skipped while a run of the schedule is active, else starts one. */
  private async run(schedule: ScheduleRow, firingId: string, now: Date): Promise<FiringOutcome> {
    const { db } = this.options;
    const nowIso = now.toISOString();
    if (await hasActiveRun(db, schedule.id)) {
      await recordSkipped(
        db,
        schedule.id,
        firingId,
        'The previous run of this schedule is still active',
        nowIso,
      );
      return 'skipped';
    }
    try {
      const started = await this.options.startRun(scheduledRunRequest(schedule));
      await recordStarted(db, schedule.id, firingId, started.runId, nowIso);
      return 'started';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A run of these tests started elsewhere (409) also means "still busy": skip, not fail.
      if (error instanceof AppError && error.statusCode === 409) {
        await recordSkipped(db, schedule.id, firingId, message, nowIso);
        return 'skipped';
      }
      if (!(error instanceof AppError)) {
        this.options.log.error({ err: error, scheduleId: schedule.id }, 'scheduled run failed to start');
      }
      await recordFailed(db, schedule.id, firingId, message, nowIso);
      return 'failed';
    }
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.loop().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
    this.timer.unref?.();
  }

  private async loop(): Promise<void> {
    let delay = this.pollMs;
    try {
      this.wakeRequested = false;
      await this.fireDue();
      const earliest = await earliestNextRun(this.options.db);
      if (earliest) {
        const wait = Date.parse(earliest) - this.options.clock.now().getTime();
        delay = Math.min(this.pollMs, Math.max(5, wait));
      }
      if (this.wakeRequested) delay = 0;
    } catch (error) {
      if (!this.stopped) this.options.log.error({ err: error }, 'schedule pass failed');
    }
    this.arm(delay);
  }
}
