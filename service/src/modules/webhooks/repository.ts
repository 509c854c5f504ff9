import { jsonObject, webhookEvent } from '@stepdeck/contract';
import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { fromFlag, readJson } from '../../adapters/db/index.ts';
import type { WebhooksTables } from '../../adapters/db/migrations/0004_webhooks.ts';
import type { Database } from '../../adapters/db/schema.ts';
import type { WebhookEvent } from './payload.ts';

export type WebhookRow = Selectable<WebhooksTables['webhooks']>;
export type DeliveryRow = Selectable<WebhooksTables['webhookDeliveries']>;

/** A webhook as the console sees it: never the secret. */
export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  customData: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

/** A webhook's custom data, checked to be a JSON object. */
export const customDataOf = (row: Pick<WebhookRow, 'id' | 'customData'>) =>
  readJson(jsonObject.nullable(), row.customData, null, `webhooks ${row.id}/customData`);

export const toView = (row: WebhookRow): WebhookView => ({
  id: row.id,
  url: row.url,
  events: readJson(webhookEvent.array(), row.events, [], `webhooks ${row.id}/events`),
  enabled: fromFlag(row.enabled),
  customData: customDataOf(row),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const toDeliveryView = (row: DeliveryRow) => ({
  id: row.id,
  webhookId: row.webhookId,
  event: row.event,
  runId: row.runId,
  status: row.status,
  attempts: row.attempts,
  lastResponseCode: row.lastResponseCode,
  lastError: row.lastError,
  body: row.body,
  nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
  lastAttemptAt: row.lastAttemptAt,
  completedAt: row.completedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export async function findWebhook(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listWebhooks(db: Db, organizationId: string) {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** Enabled webhooks of an organization subscribed to an event. */
export async function subscribedWebhooks(db: Db, organizationId: string, event: WebhookEvent) {
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('enabled', '=', 1)
    .execute();
  return rows.filter((row) =>
    readJson(webhookEvent.array(), row.events, [], `webhooks ${row.id}/events`).includes(event),
  );
}

export async function listDeliveries(db: Db, webhookId: string) {
  return db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .where('webhookId', '=', webhookId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findDelivery(db: Db, webhookId: string, deliveryId: string) {
  return db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .where('webhookId', '=', webhookId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/** The earliest future attempt, so a process can sleep exactly until then. */
export async function nextDueAt(db: Db, nowIso: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhookDeliveries')
    .select((eb) => eb.fn.min('nextAttemptAt').as('next'))
    .where('status', '=', 'pending')
    .where('nextAttemptAt', '>', nowIso)
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? undefined;
}

/**
 * Takes a due delivery for one attempt: a single conditional UPDATE, so among several
 * instances exactly one wins. Returns false when another instance holds it or it is not due.
 */
export async function claimDelivery(
  db: Db,
  id: string,
  token: string,
  nowIso: string,
  claimedUntil: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhookDeliveries')
    .set({ claimToken: token, claimedUntil })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('nextAttemptAt', '<=', nowIso)
    .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', nowIso)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes up to `limit` due deliveries for one attempt each in a single conditional UPDATE
 * (the due conditions are re-checked on every row it writes, so with several instances each
 * row goes to exactly one of them). Returns the ids this call claimed, oldest due first.
 */
export async function claimDueDeliveries(
  db: Db,
  token: string,
  nowIso: string,
  claimedUntil: string,
  limit: number,
): Promise<string[]> {
  const due = (eb: ExpressionBuilder<Database, 'webhookDeliveries'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb('nextAttemptAt', '<=', nowIso),
      eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', nowIso)]),
    ]);
  const rows = await db
    .updateTable('webhookDeliveries')
    .set({ claimToken: token, claimedUntil })
    .where((eb) =>
      eb.and([
        due(eb),
        eb(
          'id',
          'in',
          db.selectFrom('webhookDeliveries').select('id').where(due).orderBy('nextAttemptAt').limit(limit),
        ),
      ]),
    )
    .returning(['id', 'nextAttemptAt'])
    .execute();
  return rows
    .sort((a, b) => String(a.nextAttemptAt).localeCompare(String(b.nextAttemptAt)))
    .map((row) => row.id);
}

/** A claimed delivery with its webhook's URL and secret; undefined when the claim was lost. */
export async function claimedDelivery(db: Db, id: string, token: string) {
  return db
    .selectFrom('webhookDeliveries')
    .innerJoin('webhooks', 'webhooks.id', 'webhookDeliveries.webhookId')
    .selectAll('webhookDeliveries')
    .select(['webhooks.url as url', 'webhooks.secret as secret'])
    .where('webhookDeliveries.id', '=', id)
    .where('webhookDeliveries.claimToken', '=', token)
    .executeTakeFirst();
}

/** Gives a claimed attempt back unmade (the instance is stopping): the next one makes it. */
export async function releaseDelivery(db: Db, id: string, token: string): Promise<void> {
  await db
    .updateTable('webhookDeliveries')
    .set({ claimedUntil: null, claimToken: null })
    .where('id', '=', id)
    .where('claimToken', '=', token)
    .execute();
}

/** Records an attempt's outcome under its claim (and so releases it). */
export async function recordAttempt(
  db: Db,
  id: string,
  token: string,
  values: {
    status: string;
    attempts: number;
    cycleAttempts: number;
    lastResponseCode: number | null;
    lastError: string | null;
    lastAttemptAt: string;
    nextAttemptAt: string | null;
    completedAt: string | null;
    updatedAt: string;
  },
): Promise<void> {
  await db
    .updateTable('webhookDeliveries')
    .set({ ...values, claimedUntil: null, claimToken: null })
    .where('id', '=', id)
    .where('claimToken', '=', token)
    .execute();
}

/** Inserts deliveries, skipping any (webhook, run, event) already recorded; returns the new ids. */
export async function insertDeliveries(db: Db, rows: Insertable<WebhooksTables['webhookDeliveries']>[]) {
  const inserted = await db.transaction().execute((tx) =>
    tx
      .insertInto('webhookDeliveries')
      .values(rows)
      .onConflict((oc) => oc.columns(['webhookId', 'runId', 'event']).doNothing())
      .returning('id')
      .execute(),
  );
  return inserted.map((row) => row.id);
}

export async function insertWebhook(db: Db, row: WebhookRow) {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Db, id: string, changes: Partial<WebhookRow>) {
  await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

/** Deletes the webhook and its deliveries (call inside a transaction). */
export async function deleteWebhookAndDeliveries(tx: Tx, id: string) {
  await tx.deleteFrom('webhookDeliveries').where('webhookId', '=', id).execute();
  await tx.deleteFrom('webhooks').where('id', '=', id).execute();
}

/**
 * Puts a finished delivery back to pending for a new cycle of attempts (same id and body);
 * false when the webhook has no such delivery or it is still pending.
 */
export async function restartDelivery(db: Db, webhookId: string, deliveryId: string, now: string) {
  const result = await db
    .updateTable('webhookDeliveries')
    .set({
      status: 'pending',
      cycleAttempts: 0,
      nextAttemptAt: now,
      completedAt: null,
      claimedUntil: null,
      claimToken: null,
      updatedAt: now,
    })
    .where('id', '=', deliveryId)
    .where('webhookId', '=', webhookId)
    .where('status', '!=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
