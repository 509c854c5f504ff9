import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import type { Db } from '../../adapters/db/index.ts';
import type { AlertDeliveriesTables } from '../../adapters/db/migrations/0025_alert_deliveries.ts';
import type { Database } from '../../adapters/db/schema.ts';

export type AlertDeliveryRow = Selectable<AlertDeliveriesTables['alertDeliveries']>;

/** Records deliveries, skipping any (channel, run, event) already recorded; returns the new ids. */
export async function insertAlertDeliveries(
  db: Db,
  rows: Insertable<AlertDeliveriesTables['alertDeliveries']>[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('alertDeliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['channelId', 'runId', 'event']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((row) => row.id);
}

const due = (nowIso: string) => (eb: ExpressionBuilder<Database, 'alertDeliveries'>) =>
  eb.and([
    eb('status', '=', 'pending'),
    eb('nextAttemptAt', '<=', nowIso),
    eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', nowIso)]),
  ]);

/**
 * Takes due deliveries for one attempt each in a single conditional UPDATE (the due conditions
 * are re-checked on every row it writes, so among several instances each goes to one); `ids`
 * narrows it to those deliveries. Returns the ids claimed, oldest due first.
 */
export async function claimDueAlertDeliveries(
  db: Db,
  claim: { token: string; nowIso: string; claimedUntil: string; limit: number; ids?: string[] },
): Promise<string[]> {
  const candidates = db
    .selectFrom('alertDeliveries')
    .select('id')
    .where(due(claim.nowIso))
    .$if(claim.ids !== undefined, (query) => query.where('id', 'in', claim.ids as string[]))
    .orderBy('nextAttemptAt')
    .limit(claim.limit);
  const rows = await db
    .updateTable('alertDeliveries')
    .set({ claimToken: claim.token, claimedUntil: claim.claimedUntil })
    .where((eb) => eb.and([due(claim.nowIso)(eb), eb('id', 'in', candidates)]))
    .returning(['id', 'nextAttemptAt'])
    .execute();
  return rows
    .sort((a, b) => String(a.nextAttemptAt).localeCompare(String(b.nextAttemptAt)))
    .map((row) => row.id);
}

/** A claimed delivery with its channel; undefined when the claim was lost or the channel deleted. */
export async function claimedAlertDelivery(db: Db, id: string, token: string) {
  const delivery = await db
    .selectFrom('alertDeliveries')
    .selectAll()
    .where('id', '=', id)
    .where('claimToken', '=', token)
    .executeTakeFirst();
  if (!delivery) return undefined;
  const channel = await db
    .selectFrom('alertChannels')
    .selectAll()
    .where('id', '=', delivery.channelId)
    .executeTakeFirst();
  return channel ? { delivery, channel } : undefined;
}

/** The earliest future attempt, so the sweep can sleep exactly until then. */
export async function nextAlertDueAt(db: Db, nowIso: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('alertDeliveries')
    .select((eb) => eb.fn.min('nextAttemptAt').as('next'))
    .where('status', '=', 'pending')
    .where('nextAttemptAt', '>', nowIso)
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? undefined;
}

/** Gives a claimed attempt back unmade (the instance is stopping): the next one makes it. */
export async function releaseAlertDelivery(db: Db, id: string, token: string): Promise<void> {
  await db
    .updateTable('alertDeliveries')
    .set({ claimedUntil: null, claimToken: null })
    .where('id', '=', id)
    .where('claimToken', '=', token)
    .execute();
}

/** Records an attempt's outcome under its claim (and so releases it). */
export async function recordAlertAttempt(
  db: Db,
  id: string,
  token: string,
  values: Pick<
    AlertDeliveryRow,
    'status' | 'attempts' | 'lastError' | 'lastAttemptAt' | 'nextAttemptAt' | 'completedAt' | 'updatedAt'
  >,
): Promise<void> {
  await db
    .updateTable('alertDeliveries')
    .set({ ...values, claimedUntil: null, claimToken: null })
    .where('id', '=', id)
    .where('claimToken', '=', token)
    .execute();
}

/** A channel's latest deliveries, newest first. */
export async function latestAlertDeliveries(db: Db, channelId: string, limit: number) {
  return db
    .selectFrom('alertDeliveries')
    .selectAll()
    .where('channelId', '=', channelId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
