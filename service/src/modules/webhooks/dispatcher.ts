import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { Poller } from '../../poller.ts';
import { type AttemptResult, postDelivery, stoppedError } from './attempt.ts';
import { ConnectionPool } from './connections.ts';
import {
  claimDelivery,
  claimDueDeliveries,
  claimedDelivery,
  type DeliveryRow,
  nextDueAt,
  recordAttempt,
  releaseDelivery,
} from './repository.ts';
import type { WebhookSettings } from './settings.ts';

/** What an attempt reports for metrics: its outcome and how long it took. */
export type AttemptObserver = (outcome: 'succeeded' | 'retrying' | 'failed', seconds: number) => void;

/**
 * Finds due deliveries in the database, claims each for one attempt with a conditional
 * UPDATE (so any instance may deliver and an attempt happens once), sends it, and records
 * the outcome with the next attempt time. A restart resumes whatever is still pending.
 */
export class WebhookDispatcher {
  private readonly ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
  private readonly settings: () => WebhookSettings;
  private readonly observe: AttemptObserver | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopController = new AbortController();
  private readonly connections = new ConnectionPool();
  /** Sweeps for due attempts: every poll interval, sooner for the earliest pending one, and when kicked. */
  private readonly sweeps: Poller;

  constructor(options: {
    ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
    /** Read at each sweep: the settings change while it runs. */
    settings: () => WebhookSettings;
    observe?: AttemptObserver | undefined;
  }) {
    const { ctx, settings } = options;
    this.ctx = ctx;
    this.settings = settings;
    this.observe = options.observe;
    this.sweeps = new Poller({
      intervalMs: settings().pollIntervalMs,
      pass: () => this.sweep(),
      onError: (error) => this.ctx.log.error({ err: error }, 'webhook dispatcher sweep failed'),
    });
  }

  start(): void {
    this.sweeps.start();
  }

  /** Stops claiming; attempts in flight are cut short and handed back, or finish and are recorded. */
  async stop(): Promise<void> {
    const sweepsStopped = this.sweeps.stop();
    this.stopController.abort();
    await sweepsStopped;
    await Promise.allSettled([...this.inFlight]);
    await this.connections.close();
  }

  /**
   * A queue job named a delivery: claim its due attempt here and start it. When this
   * instance is full, or no id was given, a sweep takes due deliveries in order instead.
   */
  async offer(id: string | undefined): Promise<void> {
    if (this.sweeps.stopped) return;
    const settings = this.settings();
    if (!id || this.inFlight.size >= settings.concurrency) {
      this.kick();
      return;
    }
    const now = this.ctx.clock.now();
    const token = randomUUID();
    const lease = new Date(now.getTime() + settings.deadlineMs + 30_000).toISOString();
    if (await claimDelivery(this.ctx.db, id, token, now.toISOString(), lease)) this.launch(id, token);
  }

  private launch(id: string, token: string): void {
    const attempt: Promise<void> = this.attempt(id, token)
      .catch((error: unknown) => this.ctx.log.error({ err: error }, 'webhook attempt failed to record'))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.kick();
      });
    this.inFlight.add(attempt);
  }

  /** Deliveries may be due: sweep now (or right after the sweep in progress). */
  kick(): void {
    this.sweeps.wake();
  }

  /**
   * Claims due attempts while there is room; returns how soon the earliest pending attempt is
   * due, so the next sweep comes then rather than at the next poll.
   */
  private async sweep(): Promise<number | undefined> {
    const settings = this.settings();
    while (!this.sweeps.stopped) {
      const room = settings.concurrency - this.inFlight.size;
      if (room <= 0) return undefined; // an attempt finishing kicks again
      const now = this.ctx.clock.now();
      const token = randomUUID();
      const lease = new Date(now.getTime() + settings.deadlineMs + 30_000).toISOString();
      // One conditional UPDATE claims a batch: each row goes to exactly one instance.
      const ids = await claimDueDeliveries(this.ctx.db, token, now.toISOString(), lease, room);
      for (const id of ids) this.launch(id, token);
      if (ids.length < room) break;
    }
    const nowMs = this.ctx.clock.now().getTime();
    const next = await nextDueAt(this.ctx.db, new Date(nowMs).toISOString());
    if (!next) return undefined;
    // Due already: either in flight (its end kicks) or claimed elsewhere (the poll covers it).
    const wait = Date.parse(next) - nowMs;
    return wait > 0 ? wait : undefined;
  }

  private async attempt(id: string, token: string): Promise<void> {
    const row = await claimedDelivery(this.ctx.db, id, token);
    if (!row) return; // webhook deleted meanwhile, or the claim was lost
    const started = performance.now();
    const result = await postDelivery(row, {
      settings: this.settings(),
      connections: this.connections,
      stop: this.stopController.signal,
    });
    if (this.sweeps.stopped && !result.ok && result.error === stoppedError) {
      // Shutting down mid-attempt: hand the attempt back so the next instance makes it.
      await releaseDelivery(this.ctx.db, id, token);
      return;
    }
    const status = await this.record(row, token, result);
    this.observe?.(status === 'pending' ? 'retrying' : status, (performance.now() - started) / 1000);
  }

  private async record(
    row: DeliveryRow,
    token: string,
    result: AttemptResult,
  ): Promise<'succeeded' | 'failed' | 'pending'> {
    const settings = this.settings();
    const now = this.ctx.clock.now();
    const cycleAttempts = row.cycleAttempts + 1;
    const exhausted = cycleAttempts >= settings.attemptDelaysMs.length;
    const status = result.ok ? 'succeeded' : exhausted ? 'failed' : 'pending';
    const delay = settings.attemptDelaysMs[cycleAttempts] ?? 0;
    await recordAttempt(this.ctx.db, row.id, token, {
      status,
      attempts: row.attempts + 1,
      cycleAttempts,
      lastResponseCode: result.responseCode,
      lastError: result.error,
      lastAttemptAt: now.toISOString(),
      nextAttemptAt: status === 'pending' ? new Date(now.getTime() + delay).toISOString() : null,
      completedAt: status === 'pending' ? null : now.toISOString(),
      updatedAt: now.toISOString(),
    });
    return status;
  }
}
