import { randomBytes, randomUUID } from 'node:crypto';
import { toFlag, toJson } from '../../adapters/db/index.ts';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import type { WebhookDelivery } from './delivery.ts';
import type { WebhookEvent } from './payload.ts';
import {
  deleteWebhookAndDeliveries,
  findDelivery,
  findWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  restartDelivery,
  toDeliveryView,
  toView,
  updateWebhook,
  type WebhookRow,
} from './repository.ts';
import { allowedTargetsNow } from './settings.ts';
import { assertTargetUrl } from './url-guard.ts';
import { maskWebhookUrl } from './url-mask.ts';

export const maxCustomDataBytes = 4 * 1024;

const newSecret = () => `whsec_${randomBytes(32).toString('hex')}`;

export interface WebhookInput {
  url: string;
  events: WebhookEvent[];
  customData?: Record<string, unknown> | null;
  enabled?: boolean;
}

/** Console management of an organization's webhooks and their deliveries. */
const viewFor = (user: UserPrincipal, row: WebhookRow) => {
  const view = toView(row);
  return user.role === 'member' ? { ...view, url: maskWebhookUrl(view.url) } : view;
};

export class WebhooksService {
  private readonly ctx: AppContext;
  private readonly delivery: WebhookDelivery;

  constructor(options: { ctx: AppContext; delivery: WebhookDelivery }) {
    this.ctx = options.ctx;
    this.delivery = options.delivery;
  }

  private async checkUrl(url: string) {
    const settings = this.delivery.settings;
    await assertTargetUrl(url, {
      resolve: settings.resolve,
      allowedTargets: await allowedTargetsNow(settings),
    });
  }

  private async load(user: UserPrincipal, id: string): Promise<WebhookRow> {
    const row = await findWebhook(this.ctx.db, user.organizationId, id);
    if (!row) throw appError('WEBHOOK_NOT_FOUND');
    return row;
  }

  async create(user: UserPrincipal, input: WebhookInput) {
    await this.checkUrl(input.url);
    const custom = checkCustomData(input.customData);
    const now = isoNow(this.ctx.clock);
    const row: WebhookRow = {
      id: randomUUID(),
      organizationId: user.organizationId,
      url: input.url,
      events: toJson(uniqueEvents(input.events)),
      enabled: toFlag(input.enabled ?? true),
      secret: newSecret(),
      customData: custom === null ? null : toJson(custom),
      createdAt: now,
      updatedAt: now,
    };
    await insertWebhook(this.ctx.db, row);
    const view = toView(row);
    return { id: view.id, url: view.url, events: view.events, enabled: view.enabled, secret: row.secret };
  }

  /** Members see each URL masked (maskWebhookUrl); admins and owners, who may change it, in full. */
  async list(user: UserPrincipal) {
    return (await listWebhooks(this.ctx.db, user.organizationId)).map((row) => viewFor(user, row));
  }

  async get(user: UserPrincipal, id: string) {
    return viewFor(user, await this.load(user, id));
  }

  async update(user: UserPrincipal, id: string, input: Partial<WebhookInput>) {
    const row = await this.load(user, id);
    if (input.url !== undefined) await this.checkUrl(input.url);
    const changes: Partial<WebhookRow> = { updatedAt: isoNow(this.ctx.clock) };
    if (input.url !== undefined) changes.url = input.url;
    if (input.events !== undefined) changes.events = toJson(uniqueEvents(input.events));
    if (input.enabled !== undefined) changes.enabled = toFlag(input.enabled);
    if (input.customData !== undefined) {
      const custom = checkCustomData(input.customData);
      changes.customData = custom === null ? null : toJson(custom);
    }
    await updateWebhook(this.ctx.db, row.id, changes);
    return toView({ ...row, ...changes });
  }

  async setEnabled(user: UserPrincipal, id: string, enabled: boolean) {
    return this.update(user, id, { enabled });
  }

  /** A new secret, returned once; the next attempt of any delivery signs with it. */
  async rotateSecret(user: UserPrincipal, id: string) {
    const row = await this.load(user, id);
    const secret = newSecret();
    await updateWebhook(this.ctx.db, row.id, { secret, updatedAt: isoNow(this.ctx.clock) });
    return { id: row.id, secret };
  }

  async remove(user: UserPrincipal, id: string) {
    const row = await this.load(user, id);
    await this.ctx.db.transaction().execute((tx) => deleteWebhookAndDeliveries(tx, row.id));
  }

  async deliveries(user: UserPrincipal, id: string) {
    const row = await this.load(user, id);
    return (await listDeliveries(this.ctx.db, row.id)).map(toDeliveryView);
  }

  /** The three-attempt cycle again for a finished delivery, same id and body; 409 while pending. */
  async retry(user: UserPrincipal, id: string, deliveryId: string) {
    const row = await this.load(user, id);
    const now = isoNow(this.ctx.clock);
    if (!(await restartDelivery(this.ctx.db, row.id, deliveryId, now))) {
      const delivery = await findDelivery(this.ctx.db, row.id, deliveryId);
      if (!delivery) throw appError('DELIVERY_NOT_FOUND');
      throw appError('DELIVERY_PENDING');
    }
    await this.delivery.announce([deliveryId]);
    const delivery = await findDelivery(this.ctx.db, row.id, deliveryId);
    if (!delivery) throw appError('DELIVERY_NOT_FOUND');
    return toDeliveryView(delivery);
  }
}

function uniqueEvents(events: WebhookEvent[]): WebhookEvent[] {
  if (events.length === 0) throw appError('WEBHOOK_EVENTS_REQUIRED');
  return [...new Set(events)];
}

function checkCustomData(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw appError('CUSTOM_DATA_NOT_OBJECT');
  }
  const size = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (size > maxCustomDataBytes) {
    throw appError('CUSTOM_DATA_TOO_LARGE', maxCustomDataBytes, size);
  }
  return value;
}
