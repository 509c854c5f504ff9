import { createHmac, randomUUID } from 'node:crypto';
import { request } from 'undici';
import { fromJson } from '../../adapters/db/index.ts';
import { type JobQueue, openQueue } from '../../adapters/queue/index.ts';
import { isoNow } from '../../clock.ts';
import type { AppContext, RunFinished } from '../../context.ts';
import { ConnectionPool, newAgent } from './connections.ts';
import { buildBody, eventOf } from './payload.ts';
import {
  claimDelivery,
  claimDueDeliveries,
  type DeliveryRow,
  nextDueAt,
  subscribedWebhooks,
} from './repository.ts';
import { checkTargetUrl, type Resolver, systemResolver, UrlRuleError } from './url-guard.ts';

/** The spec's receiver contract: HTTP 200 within 10 seconds. */
export const defaultDeadlineMs = 10_000;
/** Attempt n is due this long after attempt n-1 failed: at once, +1 s, +5 s; three attempts. */
export const defaultAttemptDelaysMs: readonly number[] = [0, 1_000, 5_000];

export interface WebhookSettings {
  resolve: Resolver;
  /** Normalised CIDRs exempt from the private-address rule (WEBHOOK_ALLOWED_TARGETS). */
  allowedTargets: string[];
  /** Extra CA to trust for receivers (tests); real installs use NODE_EXTRA_CA_CERTS. */
  ca?: string;
  deadlineMs: number;
  attemptDelaysMs: readonly number[];
  /** How often an idle instance looks for due deliveries written by others or left by a restart. */
  pollIntervalMs: number;
  /** Attempts in flight at once per instance. */
  concurrency: number;
  /**
   * Keep connections (and TLS sessions) per checked target between attempts (default). Off:
   * a new connection and full TLS handshake per attempt (the benchmark's baseline).
   */
  reuseConnections: boolean;
}

const settingsByContext = new WeakMap<AppContext, WebhookSettings>();

/**
 * The queue job that asks some instance to make a delivery's due attempt now. Jobs are
 * wake-ups: the instance that takes one still claims the attempt with a conditional UPDATE
 * (the exactly-once guarantee), and polling covers a lost job or a crash.
 */
export const deliverJob = 'webhooks.deliver';

/** Per-app state: this process's dispatcher (when it delivers) and its queue handle. */
interface WebhooksRuntime {
  dispatcher?: WebhookDispatcher;
  queue?: Promise<JobQueue>;
}

const runtimes = new WeakMap<AppContext, WebhooksRuntime>();

function runtimeOf(ctx: AppContext): WebhooksRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    runtime = {};
    runtimes.set(ctx, runtime);
  }
  return runtime;
}

/** The process's queue: pg-boss with DATABASE_URL, in-process otherwise. */
function queueOf(ctx: AppContext, options: { listen: boolean }): Promise<JobQueue> {
  const runtime = runtimeOf(ctx);
  runtime.queue ??= openQueue(ctx.config, { listen: options.listen });
  const queue = runtime.queue;
  // A failed open is not cached: the next send tries again.
  queue.catch(() => {
    if (runtime.queue === queue) runtime.queue = undefined;
  });
  return queue;
}

/** Closes this app's webhook queue handle (the app closes it on shutdown). */
export async function closeWebhookQueue(ctx: AppContext): Promise<void> {
  const runtime = runtimeOf(ctx);
  const queue = runtime.queue;
  runtime.queue = undefined;
  if (queue) await (await queue.catch(() => undefined))?.stop();
}

/**
 * Tells the instances that these deliveries have an attempt due now: one queue job each,
 * taken by whichever delivering instance (any process on the database with pg-boss) is
 * first. If the queue cannot be reached, this instance's dispatcher (if any) is kicked and
 * the others find the deliveries by polling.
 */
export async function announceDeliveries(ctx: AppContext, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    const queue = await queueOf(ctx, { listen: false });
    // With pg-boss, a delivering instance starts on its own deliveries at once (its claim
    // decides as for anyone); the jobs bring in the others, e.g. when this one is full or
    // only serves the API. In process, the job itself reaches this dispatcher on the next tick.
    if (queue.kind === 'pg-boss') runtimeOf(ctx).dispatcher?.kick();
    await Promise.all(ids.map((id) => queue.send(deliverJob, { deliveryId: id })));
  } catch (error) {
    ctx.log.warn({ err: error }, 'could not queue webhook attempts; polling will pick them up');
    runtimeOf(ctx).dispatcher?.kick();
  }
}

/** The settings of an app: defaults from its config unless a test configured otherwise. */
export function webhookSettings(ctx: AppContext): WebhookSettings {
  let settings = settingsByContext.get(ctx);
  if (!settings) {
    settings = {
      resolve: systemResolver,
      allowedTargets: ctx.config.webhookAllowedTargets ?? [],
      deadlineMs: defaultDeadlineMs,
      attemptDelaysMs: defaultAttemptDelaysMs,
      pollIntervalMs: 1_000,
      concurrency: 64,
      reuseConnections: true,
    };
    settingsByContext.set(ctx, settings);
  }
  return settings;
}

/** Overrides settings for one app (tests inject a resolver, a CA, a short schedule). */
export function configureWebhooks(ctx: AppContext, overrides: Partial<WebhookSettings>): WebhookSettings {
  const settings = { ...webhookSettings(ctx), ...overrides };
  settingsByContext.set(ctx, settings);
  return settings;
}

export const sign = (secret: string, body: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('hex');

/**
 * Records one delivery per enabled webhook of the run's organization subscribed to the
 * event, in one transaction, before any attempt; then announces them through the queue. Cancelled runs
 * (or anything not completed/failed) send nothing. Idempotent per (webhook, run, event).
 */
export async function enqueueRunDeliveries(ctx: AppContext, run: RunFinished): Promise<string[]> {
  if (run.status !== 'completed' && run.status !== 'failed') return [];
  const event = eventOf(run.status);
  const hooks = await subscribedWebhooks(ctx.db, run.organizationId, event);
  if (hooks.length === 0) return [];
  const now = isoNow(ctx.clock);
  const rows = hooks.map((hook) => {
    const id = randomUUID();
    const body = buildBody({
      event,
      deliveryId: id,
      timestamp: now,
      run,
      publicUrl: ctx.config.publicUrl,
      custom: fromJson<Record<string, unknown> | null>(hook.customData, null),
    });
    return {
      id,
      webhookId: hook.id,
      organizationId: run.organizationId,
      event,
      runId: run.runId,
      status: 'pending',
      attempts: 0,
      cycleAttempts: 0,
      lastResponseCode: null,
      lastError: null,
      body: JSON.stringify(body),
      nextAttemptAt: now,
      claimedUntil: null,
      claimToken: null,
      lastAttemptAt: null,
      completedAt: null,
      createdAt: now,
      updatedAt: now,
    };
  });
  const inserted = await ctx.db.transaction().execute((tx) =>
    tx
      .insertInto('webhookDeliveries')
      .values(rows)
      .onConflict((oc) => oc.columns(['webhookId', 'runId', 'event']).doNothing())
      .returning('id')
      .execute(),
  );
  const ids = inserted.map((row) => row.id);
  await announceDeliveries(ctx, ids);
  return ids;
}

/**
 * Starts delivering for an app: takes `webhooks.deliver` jobs from the queue (pg-boss with
 * DATABASE_URL, so jobs sent by any process reach it; in-process otherwise), follows the
 * retry schedule with timers, and polls the database as a floor (crashes, lost jobs).
 */
export async function startWebhookDelivery(ctx: AppContext): Promise<() => Promise<void>> {
  const runtime = runtimeOf(ctx);
  const existing = runtime.dispatcher;
  if (existing) return () => existing.stop();
  const dispatcher = new WebhookDispatcher(ctx);
  runtime.dispatcher = dispatcher;
  try {
    const queue = await queueOf(ctx, { listen: true });
    await queue.work(
      deliverJob,
      async (payload) => {
        const id = typeof payload.deliveryId === 'string' ? payload.deliveryId : undefined;
        await dispatcher.offer(id);
      },
      { concurrency: 4 },
    );
  } catch (error) {
    runtime.dispatcher = undefined;
    throw error;
  }
  dispatcher.start();
  return async () => {
    await dispatcher.stop();
    if (runtime.dispatcher === dispatcher) runtime.dispatcher = undefined;
    await closeWebhookQueue(ctx);
  };
}

interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  error: string | null;
}

/**
 * Finds due deliveries in the database, claims each for one attempt with a conditional
 * UPDATE (so any instance may deliver and an attempt happens once), sends it, and records
 * the outcome with the next attempt time. A restart resumes whatever is still pending.
 */
export class WebhookDispatcher {
  private readonly ctx: AppContext;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopController = new AbortController();
  private readonly connections = new ConnectionPool();
  private pollTimer: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private sweeping: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  start(): void {
    const { pollIntervalMs } = webhookSettings(this.ctx);
    this.pollTimer = setInterval(() => this.kick(), pollIntervalMs);
    this.pollTimer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.stopController.abort();
    await this.sweeping;
    await Promise.allSettled([...this.inFlight]);
    await this.connections.close();
  }

  /**
   * A queue job named a delivery: claim its due attempt here and start it. When this
   * instance is full, or no id was given, a sweep takes due deliveries in order instead.
   */
  async offer(id: string | undefined): Promise<void> {
    if (this.stopped) return;
    const settings = webhookSettings(this.ctx);
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

  kick(): void {
    if (this.stopped) return;
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = this.sweep()
      .catch((error: unknown) => this.ctx.log.error({ err: error }, 'webhook dispatcher sweep failed'))
      .finally(() => {
        this.sweeping = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async sweep(): Promise<void> {
    const settings = webhookSettings(this.ctx);
    while (!this.stopped) {
      const room = settings.concurrency - this.inFlight.size;
      if (room <= 0) return; // an attempt finishing kicks again
      const now = this.ctx.clock.now();
      const token = randomUUID();
      const lease = new Date(now.getTime() + settings.deadlineMs + 30_000).toISOString();
      // One conditional UPDATE claims a batch: each row goes to exactly one instance.
      const ids = await claimDueDeliveries(this.ctx.db, token, now.toISOString(), lease, room);
      for (const id of ids) this.launch(id, token);
      if (ids.length < room) break;
    }
    await this.scheduleWake();
  }

  /** Sleeps until the earliest pending attempt instead of waiting for the next poll. */
  private async scheduleWake(): Promise<void> {
    const nowMs = this.ctx.clock.now().getTime();
    const next = await nextDueAt(this.ctx.db, new Date(nowMs).toISOString());
    if (!next || this.stopped) return;
    const at = Date.parse(next);
    // Due already: either in flight (its end kicks) or claimed elsewhere (the poll covers it).
    if (at <= nowMs) return;
    if (at >= this.wakeAt && this.wakeTimer) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    const delay = at - nowMs;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.kick();
    }, delay);
    this.wakeTimer.unref();
  }

  private async attempt(id: string, token: string): Promise<void> {
    const db = this.ctx.db;
    const row = await db
      .selectFrom('webhookDeliveries')
      .innerJoin('webhooks', 'webhooks.id', 'webhookDeliveries.webhookId')
      .selectAll('webhookDeliveries')
      .select(['webhooks.url as url', 'webhooks.secret as secret'])
      .where('webhookDeliveries.id', '=', id)
      .where('webhookDeliveries.claimToken', '=', token)
      .executeTakeFirst();
    if (!row) return; // webhook deleted meanwhile, or the claim was lost
    const result = await this.send(row, row.url, row.secret);
    if (this.stopped && !result.ok && result.error === stoppedError) {
      // Shutting down mid-attempt: hand the attempt back so the next instance makes it.
      await db
        .updateTable('webhookDeliveries')
        .set({ claimedUntil: null, claimToken: null })
        .where('id', '=', id)
        .where('claimToken', '=', token)
        .execute();
      return;
    }
    await this.record(row, token, result);
  }

  private async record(row: DeliveryRow, token: string, result: AttemptResult): Promise<void> {
    const settings = webhookSettings(this.ctx);
    const now = this.ctx.clock.now();
    const cycleAttempts = row.cycleAttempts + 1;
    const exhausted = cycleAttempts >= settings.attemptDelaysMs.length;
    const status = result.ok ? 'succeeded' : exhausted ? 'failed' : 'pending';
    const delay = settings.attemptDelaysMs[cycleAttempts] ?? 0;
    await this.ctx.db
      .updateTable('webhookDeliveries')
      .set({
        status,
        attempts: row.attempts + 1,
        cycleAttempts,
        lastResponseCode: result.responseCode,
        lastError: result.error,
        lastAttemptAt: now.toISOString(),
        nextAttemptAt: status === 'pending' ? new Date(now.getTime() + delay).toISOString() : null,
        completedAt: status === 'pending' ? null : now.toISOString(),
        claimedUntil: null,
        claimToken: null,
        updatedAt: now.toISOString(),
      })
      .where('id', '=', row.id)
      .where('claimToken', '=', token)
      .execute();
  }

  /** One attempt: the URL rules again, then a POST pinned to the checked addresses. */
  private async send(row: DeliveryRow, url: string, secret: string): Promise<AttemptResult> {
    const settings = webhookSettings(this.ctx);
    const deadline = AbortSignal.timeout(settings.deadlineMs);
    const signal = AbortSignal.any([deadline, this.stopController.signal]);
    let target: Awaited<ReturnType<typeof checkTargetUrl>>;
    try {
      target = await abortable(
        checkTargetUrl(url, { resolve: settings.resolve, allowedTargets: settings.allowedTargets }),
        signal,
      );
    } catch (error) {
      if (error instanceof UrlRuleError) return { ok: false, responseCode: null, error: error.message };
      return this.failure(error, deadline, settings.deadlineMs);
    }
    // Kept-alive connections and TLS sessions are reused only within the agent of this
    // exact checked target (host name + addresses just checked): see connections.ts.
    const agent = settings.reuseConnections
      ? this.connections.agentFor(target, settings.ca)
      : newAgent(target, settings.ca);
    try {
      const response = await request(target.url, {
        method: 'POST',
        dispatcher: agent,
        signal,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'Service-Webhook',
          'X-Service-Event': row.event,
          'X-Service-Delivery': row.id,
          'X-Service-Signature': sign(secret, row.body),
        },
        body: row.body,
      });
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (response.statusCode === 200) return { ok: true, responseCode: 200, error: null };
      const redirect = response.statusCode >= 300 && response.statusCode < 400;
      return {
        ok: false,
        responseCode: response.statusCode,
        error: `Expected HTTP 200, got ${response.statusCode}${redirect ? ' (redirects are not followed)' : ''}`,
      };
    } catch (error) {
      return this.failure(error, deadline, settings.deadlineMs);
    } finally {
      if (!settings.reuseConnections) agent.destroy().catch(() => undefined);
    }
  }

  private failure(error: unknown, deadline: AbortSignal, deadlineMs: number): AttemptResult {
    if (this.stopController.signal.aborted && !deadline.aborted) {
      return { ok: false, responseCode: null, error: stoppedError };
    }
    if (deadline.aborted) {
      return { ok: false, responseCode: null, error: `No HTTP 200 within ${deadlineMs} ms (timed out)` };
    }
    const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = err.cause?.code ?? err.code;
    const message = err.cause?.message ?? err.message ?? String(error);
    return {
      ok: false,
      responseCode: null,
      error: `Connection failed: ${code ? `${code} ` : ''}${message}`.trim(),
    };
  }
}

const stoppedError = 'stopped';

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
