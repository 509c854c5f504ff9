import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { Poller } from '../../poller.ts';
import { runOfScheduleCreatedSince } from '../runs/public.ts';
import { nextTick } from './cron.ts';
import type { FiringDispatch, FiringOutcome } from './firing.ts';
import {
  claimTick,
  dueSchedules,
  earliestNextRun,
  pruneFirings,
  recordStarted,
  type ScheduleRow,
  staleClaims,
  takeOverClaim,
} from './repository.ts';

export type { FiringOutcome } from './firing.ts';

/** A firing without an outcome after this long belongs to an instance that died (or a lost job). */
export const staleClaimMs = 2 * 60 * 1000;
/** Firing history kept per schedule (an every-second cron records 86,400 a day). */
export const firingRetentionMs = 7 * 24 * 60 * 60 * 1000;
const pruneEveryMs = 60 * 60 * 1000;

export interface SchedulerOptions {
  db: Db;
  clock: Clock;
  /** Performs or enqueues each claimed firing (`queueDispatch` in the service). */
  dispatch: FiringDispatch;
  log: { warn(obj: object | string, msg?: string): void; error(obj: object | string, msg?: string): void };
  /** Longest sleep between two looks at the table (other instances may add schedules). */
  pollMs?: number;
}

/** What a pass did per schedule: the outcome when fired inline, `queued` when sent as a job. */
export type PassOutcome = FiringOutcome | 'queued';

/**
 * Claims due ticks. State lives in the database only: each schedule's `nextRunAt` is the
 * tick to fire, and claiming it is a conditional UPDATE (`... WHERE nextRunAt = <tick seen>`)
 * that also moves it to the next tick after *now* and records a `claimed` firing. So a restart
 * after missed ticks fires once, and of several instances on one database one claims each
 * tick. The claimed firing is then handed to `dispatch`: in the service, a `schedules.fire`
 * job that any worker of the queue performs (see firing.ts).
 */
export class Scheduler {
  private readonly options: SchedulerOptions;
  private readonly pollMs: number;
  private readonly poller: Poller;
  private lastPrune = 0;

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.pollMs = options.pollMs ?? 1000;
    this.poller = new Poller({
      intervalMs: this.pollMs,
      pass: () => this.pass(),
      onError: (error) => {
        if (!this.poller.stopped) this.options.log.error({ err: error }, 'schedule pass failed');
      },
    });
  }

  start(): void {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  /** A schedule changed here: look again now instead of at the end of the current sleep. */
  wake(): void {
    this.poller.wake();
  }

  /** One pass: claims every schedule due at the clock's now. Exposed for tests and tools. */
  async fireDue(): Promise<Array<{ scheduleId: string; outcome: PassOutcome }>> {
    const { db } = this.options;
    const now = this.options.clock.now();
    const nowIso = now.toISOString();
    const results: Array<{ scheduleId: string; outcome: PassOutcome }> = [];
    const stale = await staleClaims(db, new Date(now.getTime() - staleClaimMs).toISOString(), 100);
    for (const claim of stale) {
      const outcome = claim.firingOutcome;
      if (outcome !== 'claimed' && outcome !== 'firing') continue;
      const firing = { id: claim.firingId, outcome, firedAt: claim.firingFiredAt };
      if (!(await takeOverClaim(db, firing, nowIso))) continue;
      // The dead instance may have created the run before dying: adopt it rather than start another.
      const made = await runOfScheduleCreatedSince(db, claim.id, claim.firingFiredAt);
      if (made) {
        await recordStarted(db, claim.id, claim.firingId, made.id, nowIso);
        results.push({ scheduleId: claim.id, outcome: 'started' });
        continue;
      }
      const sent = await this.dispatch({
        scheduleId: claim.id,
        tickAt: claim.firingTickAt,
        firingId: claim.firingId,
      });
      if (sent) results.push({ scheduleId: claim.id, outcome: sent });
    }
    const due = await dueSchedules(db, nowIso, 100);
    for (const schedule of due) {
      const outcome = await this.claim(schedule, now);
      if (outcome) results.push({ scheduleId: schedule.id, outcome });
    }
    if (now.getTime() - this.lastPrune >= pruneEveryMs) {
      this.lastPrune = now.getTime();
      await pruneFirings(db, new Date(now.getTime() - firingRetentionMs).toISOString());
    }
    return results;
  }

  private async claim(schedule: ScheduleRow, now: Date): Promise<PassOutcome | undefined> {
    const tickAt = schedule.nextRunAt;
    if (!tickAt) return undefined;
    let next: string | null;
    try {
      next = nextTick(schedule.cron, schedule.timezone, now);
    } catch (error) {
      next = null;
      this.options.log.error({ err: error, scheduleId: schedule.id }, 'schedule cron no longer valid');
    }
    const firingId = await claimTick(this.options.db, { id: schedule.id, tickAt }, next, now.toISOString());
    if (!firingId) return undefined;
    return this.dispatch({ scheduleId: schedule.id, tickAt, firingId });
  }

  /** A claimed firing whose job cannot be sent stays `claimed`: the stale-claim takeover re-sends it. */
  private async dispatch(job: { scheduleId: string; tickAt: string; firingId: string }) {
    try {
      return await this.options.dispatch(job);
    } catch (error) {
      this.options.log.warn(
        { err: error, scheduleId: job.scheduleId },
        'could not dispatch a schedule firing',
      );
      return undefined;
    }
  }

  /** Fires what is due, then sleeps until the earliest next tick (at most `pollMs`). */
  private async pass(): Promise<number> {
    await this.fireDue();
    const earliest = await earliestNextRun(this.options.db);
    if (!earliest) return this.pollMs;
    const wait = Date.parse(earliest) - this.options.clock.now().getTime();
    return Math.max(5, wait);
  }
}
