import { randomUUID } from 'node:crypto';
import type { AlertChannel, AlertChannelCreate, AlertChannelUpdate, AlertDelivery } from '@stepdeck/contract';
import { fromFlag, toFlag } from '../../adapters/db/index.ts';
import { isoNow } from '../../clock.ts';
import type { AppContext, RunFinished } from '../../context.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import { findProject } from '../accounts/public.ts';
import { effectiveInstallSettings } from '../install-settings/public.ts';
import { findSchedule } from '../schedules/public.ts';
import {
  allowedTargetsNow,
  checkTargetUrl,
  maskWebhookUrl,
  UrlRuleError,
  type WebhookSettings,
} from '../webhooks/public.ts';
import { latestAlertDeliveries } from './deliveries-repository.ts';
import { type AlertNotifier, contentOf } from './notifier.ts';
import {
  type AlertChannelRow,
  deleteChannel,
  findChannel,
  insertChannel,
  listChannels,
  updateChannel,
} from './repository.ts';

/** A channel as the console sees it; a member sees a chat URL masked (it carries a token). */
function toView(row: AlertChannelRow, user: UserPrincipal): AlertChannel {
  const url = row.url === null ? null : user.role === 'member' ? maskWebhookUrl(row.url) : row.url;
  return {
    id: row.id,
    projectId: row.projectId,
    scheduleId: row.scheduleId,
    name: row.name,
    kind: row.kind,
    url,
    recipients: row.recipients ? (JSON.parse(row.recipients) as string[]) : [],
    onFailed: fromFlag(row.onFailed),
    onRecovered: fromFlag(row.onRecovered),
    everyFailure: fromFlag(row.everyFailure),
    enabled: fromFlag(row.enabled),
    lastSentAt: row.lastSentAt,
    lastError: row.lastError,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** How many of a channel's latest deliveries the console is shown. */
const deliveriesShown = 20;

/** An organization's alert channels, per project (and optionally per schedule). */
export class AlertsService {
  private readonly ctx: AppContext;
  private readonly notifier: AlertNotifier;
  private readonly webhookSettings: () => WebhookSettings;

  constructor(options: { ctx: AppContext; notifier: AlertNotifier; webhookSettings: () => WebhookSettings }) {
    this.ctx = options.ctx;
    this.notifier = options.notifier;
    this.webhookSettings = options.webhookSettings;
  }

  private async requireProject(user: UserPrincipal, projectId: string) {
    const project = await findProject(this.ctx.db, user.organizationId, projectId);
    if (!project) throw appError('PROJECT_NOT_FOUND');
    return project;
  }

  private async load(user: UserPrincipal, projectId: string, id: string): Promise<AlertChannelRow> {
    await this.requireProject(user, projectId);
    const row = await findChannel(this.ctx.db, user.organizationId, projectId, id);
    if (!row) throw appError('ALERT_CHANNEL_NOT_FOUND');
    return row;
  }

  async list(user: UserPrincipal, projectId: string): Promise<AlertChannel[]> {
    await this.requireProject(user, projectId);
    const rows = await listChannels(this.ctx.db, user.organizationId, projectId);
    return rows.map((row) => toView(row, user));
  }

  async get(user: UserPrincipal, projectId: string, id: string): Promise<AlertChannel> {
    return toView(await this.load(user, projectId, id), user);
  }

  async create(user: UserPrincipal, projectId: string, input: AlertChannelCreate): Promise<AlertChannel> {
    await this.requireProject(user, projectId);
    const now = isoNow(this.ctx.clock);
    const row: AlertChannelRow = {
      id: randomUUID(),
      organizationId: user.organizationId,
      projectId,
      scheduleId: input.scheduleId ?? null,
      name: input.name,
      kind: input.kind,
      url: input.url ?? null,
      recipients: input.recipients ? JSON.stringify(input.recipients) : null,
      onFailed: toFlag(input.onFailed ?? true),
      onRecovered: toFlag(input.onRecovered ?? true),
      everyFailure: toFlag(input.everyFailure ?? false),
      enabled: toFlag(input.enabled ?? true),
      lastSentAt: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.check(user, row);
    await insertChannel(this.ctx.db, row);
    return toView(row, user);
  }

  async update(user: UserPrincipal, projectId: string, id: string, input: AlertChannelUpdate) {
    const row = await this.load(user, projectId, id);
    const next: AlertChannelRow = {
      ...row,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.scheduleId !== undefined ? { scheduleId: input.scheduleId } : {}),
      // The URL as a member's view masks it, sent back unchanged, keeps the stored one.
      ...(input.url !== undefined && !(row.url !== null && input.url === maskWebhookUrl(row.url))
        ? { url: input.url }
        : {}),
      ...(input.recipients !== undefined ? { recipients: JSON.stringify(input.recipients) } : {}),
      ...(input.onFailed !== undefined ? { onFailed: toFlag(input.onFailed) } : {}),
      ...(input.onRecovered !== undefined ? { onRecovered: toFlag(input.onRecovered) } : {}),
      ...(input.everyFailure !== undefined ? { everyFailure: toFlag(input.everyFailure) } : {}),
      ...(input.enabled !== undefined ? { enabled: toFlag(input.enabled) } : {}),
      updatedAt: isoNow(this.ctx.clock),
    };
    await this.check(user, next);
    const { id: _id, organizationId: _org, projectId: _project, createdAt: _created, ...changes } = next;
    await updateChannel(this.ctx.db, id, changes);
    return toView(next, user);
  }

  async remove(user: UserPrincipal, projectId: string, id: string): Promise<void> {
    await this.requireProject(user, projectId);
    if (!(await deleteChannel(this.ctx.db, user.organizationId, projectId, id)))
      throw appError('ALERT_CHANNEL_NOT_FOUND');
  }

  /** The channel's latest deliveries, newest first. */
  async deliveries(user: UserPrincipal, projectId: string, id: string): Promise<AlertDelivery[]> {
    const row = await this.load(user, projectId, id);
    const rows = await latestAlertDeliveries(this.ctx.db, row.id, deliveriesShown);
    return rows.map((delivery) => ({
      id: delivery.id,
      channelId: delivery.channelId,
      runId: delivery.runId,
      event: delivery.event as AlertDelivery['event'],
      status: delivery.status as AlertDelivery['status'],
      attempts: delivery.attempts,
      lastError: delivery.lastError,
      nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
      lastAttemptAt: delivery.lastAttemptAt,
      completedAt: delivery.completedAt,
      createdAt: delivery.createdAt,
    }));
  }

  /** Sends a test message now, one attempt; answers what happened. */
  async sendTest(user: UserPrincipal, projectId: string, id: string) {
    const row = await this.load(user, projectId, id);
    const project = await this.requireProject(user, projectId);
    const run: RunFinished = {
      organizationId: user.organizationId,
      runId: '00000000-0000-4000-8000-000000000000',
      name: `Alert channel "${row.name}"`,
      status: 'completed',
      startedAt: null,
      finishedAt: isoNow(this.ctx.clock),
      durationMs: 0,
      trigger: { type: 'manual', email: user.email },
      project: { id: project.id, name: project.name },
      branch: { id: project.defaultBranchId, name: 'test message' },
      target: { type: 'test', id: row.id, name: 'none (a test message)' },
      stats: { passed: 0, failed: 0, skipped: 0, total: 0 },
      tests: [],
    };
    const error = await this.notifier.sendTestMessage(
      row,
      contentOf(run, 'test', [], this.ctx.config.publicUrl),
    );
    return { sent: error === null, error };
  }

  /** The rules a channel must meet to be saved: each broken one is a 400 naming the field. */
  private async check(user: UserPrincipal, row: AlertChannelRow): Promise<void> {
    const invalid = (problem: string) => appError('ALERT_CHANNEL_INVALID', problem);
    if (row.kind === 'email') {
      if (row.url !== null) throw invalid('url: an email channel has recipients, not a URL');
      const recipients = row.recipients ? (JSON.parse(row.recipients) as string[]) : [];
      if (recipients.length === 0) throw invalid('recipients: an email channel needs at least one address');
      if (!(await effectiveInstallSettings(this.ctx.db)).smtpRelay) throw appError('SMTP_RELAY_NOT_SET');
    } else {
      if (row.recipients !== null && row.recipients !== '[]')
        throw invalid(`recipients: a ${row.kind} channel posts to its URL and has no recipients`);
      if (!row.url) throw invalid(`url: a ${row.kind} channel needs its incoming-webhook URL`);
      try {
        await checkTargetUrl(row.url, {
          resolve: this.webhookSettings().resolve,
          allowedTargets: await allowedTargetsNow(this.webhookSettings()),
        });
      } catch (error) {
        if (error instanceof UrlRuleError) throw invalid(error.message);
        throw error;
      }
    }
    if (row.scheduleId !== null) {
      const schedule = await findSchedule(this.ctx.db, user.organizationId, row.scheduleId);
      if (!schedule || schedule.projectId !== row.projectId)
        throw invalid('scheduleId: no schedule of this project has this id');
    }
  }
}
