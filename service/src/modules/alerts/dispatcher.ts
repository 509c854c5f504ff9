import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { Poller } from '../../poller.ts';
import {
  type AlertDeliveryRow,
  claimDueAlertDeliveries,
  claimedAlertDelivery,
  nextAlertDueAt,
  recordAlertAttempt,
  releaseAlertDelivery,
} from './deliveries-repository.ts';
import type { AlertContent } from './messages.ts';
import { type AlertChannelRow, recordOutcome } from './repository.ts';
import { AlertSendError, type AlertSettings } from './senders.ts';

/** Sends one alert once; throws AlertSendError with words fit for the channel's last error. */
export type AlertSend = (channel: AlertChannelRow, content: AlertContent) => Promise<void>;

/** Attempts at once per instance. */
const concurrency = 16;

/**
 * Makes the recorded alert deliveries' attempts: each claimed with a conditional UPDATE (so any
 * instance may send and an attempt happens once), sent, and recorded with the next attempt's
 * time. A run's alerts are attempted at once by the process that recorded them; the sweep,
 * running with the app's background work, takes the retries and whatever a restart left pending.
 */
export class AlertDispatcher {
  private readonly ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
  private readonly settings: () => AlertSettings;
  private readonly send: AlertSend;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sweeps: Poller;
  private stopping = false;

  constructor(options: {
    ctx: Pick<AppContext, 'db' | 'clock' | 'log'>;
    settings: () => AlertSettings;
    send: AlertSend;
  }) {
    this.ctx = options.ctx;
    this.settings = options.settings;
    this.send = options.send;
    this.sweeps = new Poller({
      intervalMs: options.settings().pollIntervalMs,
      pass: () => this.sweep(),
      onError: (error) => this.ctx.log.error({ err: error }, 'alert dispatcher sweep failed'),
    });
  }

  /** Sweeps for due attempts from now on (the app's background work). */
  start(): void {
    this.sweeps.start();
  }

  /** Stops claiming; resolves once the attempts in flight are recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.sweeps.stop();
    await this.idle();
  }

  /** Resolves once no attempt is in flight here. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Attempts these just-recorded deliveries now, here; resolves once they are recorded. */
  async attemptNow(ids: string[]): Promise<void> {
    if (ids.length === 0 || this.stopping) return;
    const claimed = await this.claim(ids.length, ids);
    await Promise.allSettled(claimed.map(({ id, token }) => this.launch(id, token)));
  }

  private async claim(limit: number, ids?: string[]) {
    const now = this.ctx.clock.now();
    const token = randomUUID();
    const claimedUntil = new Date(now.getTime() + this.settings().deadlineMs + 30_000).toISOString();
    const claimed = await claimDueAlertDeliveries(this.ctx.db, {
      token,
      nowIso: now.toISOString(),
      claimedUntil,
      limit,
      ...(ids ? { ids } : {}),
    });
    return claimed.map((id) => ({ id, token }));
  }

  private launch(id: string, token: string): Promise<void> {
    const attempt: Promise<void> = this.attempt(id, token)
      .catch((error: unknown) => this.ctx.log.error({ err: error }, 'alert attempt failed to record'))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.sweeps.wake();
      });
    this.inFlight.add(attempt);
    return attempt;
  }

  /** Claims due attempts while there is room; answers how soon the earliest pending one is due. */
  private async sweep(): Promise<number | undefined> {
    while (!this.sweeps.stopped) {
      const room = concurrency - this.inFlight.size;
      if (room <= 0) return undefined; // an attempt finishing wakes the sweep
      const claimed = await this.claim(room);
      for (const { id, token } of claimed) void this.launch(id, token);
      if (claimed.length < room) break;
    }
    const nowMs = this.ctx.clock.now().getTime();
    const next = await nextAlertDueAt(this.ctx.db, new Date(nowMs).toISOString());
    if (!next) return undefined;
    const wait = Date.parse(next) - nowMs;
    return wait > 0 ? wait : undefined;
  }

  private async attempt(id: string, token: string): Promise<void> {
    const claimed = await claimedAlertDelivery(this.ctx.db, id, token);
    if (!claimed) return; // channel deleted meanwhile, or the claim was lost
    if (this.stopping) {
      await releaseAlertDelivery(this.ctx.db, id, token);
      return;
    }
    const { delivery, channel } = claimed;
    let error: string | null = null;
    try {
      await this.send(channel, JSON.parse(delivery.content) as AlertContent);
    } catch (caught) {
      error = caught instanceof AlertSendError ? caught.message : 'Sending failed (see the service log)';
      if (!(caught instanceof AlertSendError))
        this.ctx.log.error({ err: caught, alertChannelId: channel.id }, 'alert attempt failed');
    }
    await this.record(delivery, channel, token, error);
  }

  private async record(
    delivery: AlertDeliveryRow,
    channel: AlertChannelRow,
    token: string,
    error: string | null,
  ): Promise<void> {
    const delays = this.settings().attemptDelaysMs;
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    const attempts = delivery.attempts + 1;
    const status = error === null ? 'succeeded' : attempts >= delays.length ? 'failed' : 'pending';
    await recordAlertAttempt(this.ctx.db, delivery.id, token, {
      status,
      attempts,
      lastError: error,
      lastAttemptAt: at,
      nextAttemptAt:
        status === 'pending' ? new Date(now.getTime() + (delays[attempts] ?? 0)).toISOString() : null,
      completedAt: status === 'pending' ? null : at,
      updatedAt: at,
    });
    await recordOutcome(this.ctx.db, channel.id, {
      lastSentAt: error === null ? at : channel.lastSentAt,
      lastError: error,
    });
    if (error)
      this.ctx.log.warn(
        { alertChannelId: channel.id, kind: channel.kind, attempts, status, error },
        status === 'failed' ? 'alert not delivered: attempts exhausted' : 'alert attempt failed; retrying',
      );
  }
}
