/**
 * What one `playwright test` costs besides its tests, as this process has measured it: the
 * start-up (process, config, workers, browser launch) and the tear-down (reports), i.e. a
 * run's wall time minus the sum of its tests' durations. The planner sizes batches with it
 * (planner.ts), so a machine where Playwright starts in 1.4 s splits runs more finely than one
 * where it takes 2.5 s, without anyone tuning a setting.
 *
 * The estimate is the least of the recent measurements, and never more than the fallback (the
 * bench's figure on the slowest machine it has met, which stands until something is measured).
 * A batch that started while others were starting waits for the CPU, and that wait is load, not
 * what the next batch costs on its own: taken as the cost, it would make the planner use fewer
 * slots the more it used (a trial went from 4 batches to 2), and on a busy machine split runs
 * less than before anything was measured. So measuring can only let a fast machine split finer.
 *
 * One per process: the cost belongs to the machine and its Playwright install, not to an app.
 * Until it has measured, a process plans with the estimate the install last stored
 * ({@link seed}; planner.ts), not the fallback: a restarted runner then splits its first runs
 * as the previous one did.
 */
export class StartupCost {
  private readonly recent: number[] = [];
  private seeded: number | undefined;
  /** The estimate this process last read from or wrote to the install's settings (planner.ts). */
  storedMs: number | undefined;
  readonly fallbackMs: number;
  /** How many recent measurements the estimate looks at. */
  private readonly window: number;

  constructor(fallbackMs: number, window = 16) {
    this.fallbackMs = fallbackMs;
    this.window = window;
  }

  /**
   * Records one execution: its wall time and its tests' durations. Only executions with one
   * worker tell the cost (with more, tests overlap and their sum says nothing), and only those
   * that ran tests.
   */
  record(execution: { durationMs: number; testDurationsMs: readonly number[]; workers: number }): void {
    if (execution.workers !== 1 || execution.testDurationsMs.length === 0) return;
    const overheadMs = execution.durationMs - execution.testDurationsMs.reduce((sum, ms) => sum + ms, 0);
    if (!Number.isFinite(overheadMs) || overheadMs <= 0) return;
    this.recent.push(overheadMs);
    if (this.recent.length > this.window) this.recent.shift();
  }

  /** An estimate measured elsewhere (an earlier process), used until this one has measured. */
  seed(ms: number): void {
    if (Number.isFinite(ms) && ms > 0) this.seeded = ms;
  }

  /** The start-up cost to plan with (ms). */
  estimate(): number {
    const known = this.recent.length > 0 ? this.recent : this.seeded === undefined ? [] : [this.seeded];
    return Math.round(Math.min(this.fallbackMs, ...known));
  }

  /** How many executions the estimate is drawn from (at most the window). */
  get measured(): number {
    return this.recent.length;
  }
}
