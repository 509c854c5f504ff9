import { randomUUID } from 'node:crypto';
import type { AppContext, RunFinished } from '../../context.ts';
import { triageOfRun } from '../history/public.ts';
import { effectiveInstallSettings } from '../install-settings/public.ts';
import { allowedTargetsNow, runUrl, type WebhookSettings } from '../webhooks/public.ts';
import { insertAlertDeliveries } from './deliveries-repository.ts';
import { AlertDispatcher } from './dispatcher.ts';
import { type AlertContent, type AlertFailure, emailMessage, slackBody, teamsBody } from './messages.ts';
import { type AlertChannelRow, advanceStream, channelsForRun, recordOutcome } from './repository.ts';
import { AlertSendError, type AlertSettings, postChatMessage, sendEmail } from './senders.ts';

/** The statuses a test result counts as failing in an alert. */
const passing = new Set(['passed', 'skipped', 'flaky']);

/** The streams a run belongs to: its target on its branch, and its schedule's when a schedule fired it. */
export function streamKeys(run: RunFinished): { project: string; schedule: string | null } {
  return {
    project: `project:${run.project.id}:${run.branch.id}:${run.target.type}:${run.target.id}`,
    schedule: run.scheduleId ? `schedule:${run.scheduleId}` : null,
  };
}

/** Which alert, if any, a channel sends for a run whose stream's previous outcome was `previous`. */
export function alertFor(
  channel: Pick<AlertChannelRow, 'onFailed' | 'onRecovered' | 'everyFailure'>,
  status: RunFinished['status'],
  previous: string | undefined,
): 'failed' | 'recovered' | null {
  if (status === 'failed')
    return channel.onFailed && (channel.everyFailure || previous !== 'failed') ? 'failed' : null;
  return channel.onRecovered && previous === 'failed' ? 'recovered' : null;
}

const triggerLabel = (trigger: RunFinished['trigger']) =>
  trigger.type === 'schedule'
    ? `schedule ${trigger.schedule}`
    : trigger.type === 'manual'
      ? `started by ${trigger.email}`
      : `API key ${trigger.name}`;

/**
 * Sends a project's alerts when its runs end: on a failure (the first of a streak, or every
 * one when the channel says so) and on the first pass after a failure. Each alert is recorded
 * as a delivery first (`alertDeliveries`), then attempted at once by the process that ended the
 * run; retries follow `attemptDelaysMs` and survive a restart (dispatcher.ts). Each channel
 * keeps its last outcome for the console.
 */
export class AlertNotifier {
  private readonly ctx: AppContext;
  private current: AlertSettings;
  private readonly webhookSettings: () => WebhookSettings;
  private readonly work = new Set<Promise<unknown>>();
  private readonly dispatcher: AlertDispatcher;
  private stopped = false;

  constructor(options: { ctx: AppContext; settings: AlertSettings; webhookSettings: () => WebhookSettings }) {
    this.ctx = options.ctx;
    this.current = options.settings;
    this.webhookSettings = options.webhookSettings;
    this.dispatcher = new AlertDispatcher({
      ctx: options.ctx,
      settings: () => this.current,
      send: (channel, content) => this.sendOnce(channel, content),
    });
  }

  get settings(): AlertSettings {
    return this.current;
  }

  /** Overrides settings (tests: a resolver, a CA, short delays). */
  configure(overrides: Partial<AlertSettings>): AlertSettings {
    this.current = { ...this.current, ...overrides };
    return this.current;
  }

  /** Resolves once the alerts of the runs heard so far are recorded and their attempts made (tests, shutdown). */
  async pending(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
    await this.dispatcher.idle();
  }

  /** Takes retries and the deliveries a restart left pending (the app's background work). */
  start(): void {
    this.dispatcher.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
    await this.dispatcher.stop();
  }

  hear(run: RunFinished): void {
    if (this.stopped) return;
    const job = this.onRunFinished(run)
      .catch((error: unknown) =>
        this.ctx.log.error({ err: error, runId: run.runId }, 'recording run alerts failed'),
      )
      .finally(() => this.work.delete(job));
    this.work.add(job);
  }

  private async onRunFinished(run: RunFinished): Promise<void> {
    const { db } = this.ctx;
    const channels = await channelsForRun(db, run.project.id, run.scheduleId ?? null);
    if (channels.length === 0) return;
    const keys = streamKeys(run);
    const now = this.ctx.clock.now().toISOString();
    const advance = (key: string) =>
      advanceStream(db, {
        key,
        organizationId: run.organizationId,
        status: run.status,
        runId: run.runId,
        now,
      });
    const projectStream = await advance(keys.project);
    const scheduleStream = keys.schedule ? await advance(keys.schedule) : undefined;
    const due: Array<{ channel: AlertChannelRow; event: 'failed' | 'recovered' }> = [];
    for (const channel of channels) {
      const stream = channel.scheduleId ? scheduleStream : projectStream;
      if (!stream || stream.repeated) continue;
      const event = alertFor(channel, run.status, stream.previous);
      if (event) due.push({ channel, event });
    }
    if (due.length === 0) return;
    const failures = run.status === 'failed' ? await this.failuresOf(run) : [];
    // Recorded with their content before any attempt: a restart resumes them as they were.
    const ids = await insertAlertDeliveries(
      db,
      due.map(({ channel, event }) => ({
        id: randomUUID(),
        channelId: channel.id,
        organizationId: run.organizationId,
        runId: run.runId,
        event,
        status: 'pending',
        attempts: 0,
        lastError: null,
        content: JSON.stringify(contentOf(run, event, failures, this.ctx.config.publicUrl)),
        nextAttemptAt: now,
        claimedUntil: null,
        claimToken: null,
        lastAttemptAt: null,
        completedAt: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
    await this.dispatcher.attemptNow(ids);
  }

  /** The run's failing tests with their triage (new, known, flaky, quarantined) when history has it. */
  private async failuresOf(run: RunFinished): Promise<AlertFailure[]> {
    const failing = run.tests.filter((test) => !passing.has(test.status));
    const triage = new Map<string, AlertFailure['triage']>();
    try {
      const result = await triageOfRun(
        this.ctx,
        { organizationId: run.organizationId, projectId: run.project.id },
        run.runId,
      );
      for (const failure of result.failures) triage.set(failure.name, failure.triage);
    } catch (error) {
      this.ctx.log.warn({ err: error, runId: run.runId }, 'alerts go without triage: it could not be read');
    }
    return failing.map((test) => ({
      name: test.name,
      status: test.status,
      triage: triage.get(test.name) ?? null,
      errorMessage: test.errorMessage,
    }));
  }

  /** Sends a test message once, now, and records the outcome on the channel. Never throws. */
  async sendTestMessage(channel: AlertChannelRow, content: AlertContent): Promise<string | null> {
    let lastError: string | null = null;
    try {
      await this.sendOnce(channel, content);
    } catch (error) {
      lastError = error instanceof AlertSendError ? error.message : 'Sending failed (see the service log)';
      if (!(error instanceof AlertSendError))
        this.ctx.log.error({ err: error, alertChannelId: channel.id }, 'test alert failed');
    }
    await recordOutcome(this.ctx.db, channel.id, {
      lastSentAt: lastError ? channel.lastSentAt : this.ctx.clock.now().toISOString(),
      lastError,
    });
    return lastError;
  }

  private async sendOnce(channel: AlertChannelRow, content: AlertContent): Promise<void> {
    const settings = this.current;
    if (channel.kind === 'email') {
      const relay = (await effectiveInstallSettings(this.ctx.db)).smtpRelay;
      if (!relay) throw new AlertSendError("The install's SMTP relay is not set");
      const recipients = JSON.parse(channel.recipients ?? '[]') as string[];
      await sendEmail(relay, recipients, emailMessage(content), settings);
      return;
    }
    if (!channel.url) throw new AlertSendError('The channel has no URL');
    const body = channel.kind === 'slack' ? slackBody(content) : teamsBody(content);
    const allowedTargets = await allowedTargetsNow(this.webhookSettings());
    await postChatMessage(channel.url, body, { settings, allowedTargets });
  }
}

export function contentOf(
  run: RunFinished,
  event: AlertContent['event'],
  failures: AlertFailure[],
  publicUrl: string,
): AlertContent {
  return {
    event,
    runName: run.name,
    runUrl: runUrl(publicUrl, run),
    project: run.project.name,
    branch: run.branch.name,
    target: `${run.target.type} ${run.target.name}`,
    trigger: triggerLabel(run.trigger),
    stats: run.stats,
    failures,
    leftOut: run.leftOut?.count ?? 0,
  };
}
