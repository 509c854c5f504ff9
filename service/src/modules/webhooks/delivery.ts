import { randomUUID } from 'node:crypto';
import type { WebhookTriage } from '@stepdeck/contract';
import type { JobQueue } from '../../adapters/queue/index.ts';
import { isoNow } from '../../clock.ts';
import type { AppContext, RunFinished } from '../../context.ts';
import { triageOfRun } from '../history/public.ts';
import { effectiveInstallSettings } from '../install-settings/public.ts';
import { type AttemptObserver, WebhookDispatcher } from './dispatcher.ts';
import { buildBody, eventOf } from './payload.ts';
import { customDataOf, insertDeliveries, subscribedWebhooks } from './repository.ts';
import { defaultWebhookSettings, type WebhookSettings } from './settings.ts';

export { sign } from './attempt.ts';
export { defaultAttemptDelaysMs, defaultDeadlineMs, type WebhookSettings } from './settings.ts';

/**
 * The queue job that asks some instance to make a delivery's due attempt now. Jobs are
 * wake-ups: the instance that takes one still claims the attempt with a conditional UPDATE
 * (the exactly-once guarantee), and polling covers a lost job or a crash.
 */
export const deliverJob = 'webhooks.deliver';

/**
 * The webhooks module of one process (the webhooks plugin decorates the instance with it):
 * its settings, recording a finished run's deliveries, announcing due attempts through the
 * process's queue, and this process's dispatcher while it delivers.
 */
export class WebhookDelivery {
  private readonly ctx: AppContext;
  private current: WebhookSettings;
  private dispatcher: WebhookDispatcher | undefined;
  private queue: JobQueue | undefined;
  private readonly observe: AttemptObserver | undefined;

  constructor(options: { ctx: AppContext; observe?: AttemptObserver }) {
    this.ctx = options.ctx;
    const db = options.ctx.db;
    this.current = defaultWebhookSettings(
      options.ctx.config,
      async () => (await effectiveInstallSettings(db)).webhookAllowedTargets,
    );
    this.observe = options.observe;
  }

  get settings(): WebhookSettings {
    return this.current;
  }

  /** Overrides settings (tests inject a resolver, a CA, a short schedule). */
  configure(overrides: Partial<WebhookSettings>): WebhookSettings {
    this.current = { ...this.current, ...overrides };
    return this.current;
  }

  /**
   * Records one delivery per enabled webhook of the run's organization subscribed to the
   * event, in one transaction, before any attempt; then announces them through the queue.
   * Cancelled runs (or anything not completed/failed) send nothing. Idempotent per
   * (webhook, run, event).
   */
  async enqueueRunDeliveries(run: RunFinished): Promise<string[]> {
    if (run.status !== 'completed' && run.status !== 'failed') return [];
    const { ctx } = this;
    const event = eventOf(run.status);
    const hooks = await subscribedWebhooks(ctx.db, run.organizationId, event);
    if (hooks.length === 0) return [];
    const now = isoNow(ctx.clock);
    // Read once, now: the body is fixed when recorded, and retries send the same bytes.
    const triage = await this.triageOf(run);
    const rows = hooks.map((hook) => {
      const id = randomUUID();
      const body = buildBody({
        event,
        deliveryId: id,
        timestamp: now,
        run,
        publicUrl: ctx.config.publicUrl,
        custom: customDataOf(hook),
        triage,
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
    const ids = await insertDeliveries(ctx.db, rows);
    await this.announce(ids);
    return ids;
  }

  /**
   * The run's failures classed against its base branch, for the body; null without failures.
   * A triage that cannot be read leaves the field out rather than holding the deliveries back.
   */
  private async triageOf(run: RunFinished): Promise<WebhookTriage | null> {
    if (!run.tests.some((test) => test.status !== 'passed' && test.status !== 'skipped')) return null;
    try {
      const triage = await triageOfRun(
        this.ctx,
        { organizationId: run.organizationId, projectId: run.project.id },
        run.runId,
      );
      return {
        baseBranch: triage.baseBranch,
        counts: triage.counts,
        failures: triage.failures.map(({ testId, name, triage }) => ({ testId, name, triage })),
      };
    } catch (error) {
      this.ctx.log.warn(
        { err: error, runId: run.runId },
        'webhook body goes without triage: it could not be read',
      );
      return null;
    }
  }

  /**
   * Tells the instances that these deliveries have an attempt due now: one queue job each,
   * taken by whichever delivering instance (any process on the database with pg-boss) is
   * first. If the queue cannot be reached, this instance's dispatcher (if any) is kicked and
   * the others find the deliveries by polling.
   */
  async announce(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      const queue = await this.ctx.queue.open();
      // With pg-boss, a delivering instance starts on its own deliveries at once (its claim
      // decides as for anyone); the jobs bring in the others, e.g. when this one is full or
      // only serves the API. In process, the job itself reaches this dispatcher on the next tick.
      if (queue.kind === 'pg-boss') this.dispatcher?.kick();
      await Promise.all(ids.map((id) => queue.send(deliverJob, { deliveryId: id })));
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'could not queue webhook attempts; polling will pick them up');
      this.dispatcher?.kick();
    }
  }

  /**
   * Starts delivering in this process: takes `webhooks.deliver` jobs from the queue (pg-boss
   * with DATABASE_URL, so jobs sent by any process reach it; in-process otherwise), follows
   * the retry schedule with timers, and polls the database as a floor (crashes, lost jobs).
   */
  async start(): Promise<void> {
    if (this.dispatcher) return;
    const dispatcher = new WebhookDispatcher({
      ctx: this.ctx,
      settings: () => this.current,
      observe: this.observe,
    });
    this.dispatcher = dispatcher;
    try {
      const queue = await this.ctx.queue.open('work');
      await queue.work(
        deliverJob,
        async (payload) => {
          const id = typeof payload.deliveryId === 'string' ? payload.deliveryId : undefined;
          await dispatcher.offer(id);
        },
        { concurrency: 4 },
      );
      this.queue = queue;
    } catch (error) {
      this.dispatcher = undefined;
      throw error;
    }
    dispatcher.start();
  }

  /** Stops delivering here: no more jobs taken, attempts in flight finished or handed back. */
  async stop(): Promise<void> {
    const { dispatcher, queue } = this;
    this.dispatcher = undefined;
    this.queue = undefined;
    await queue?.offWork(deliverJob).catch((error: unknown) => {
      this.ctx.log.warn({ err: error }, 'could not stop taking webhook jobs');
    });
    await dispatcher?.stop();
  }
}
