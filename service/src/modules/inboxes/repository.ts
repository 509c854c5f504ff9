import { z } from 'zod';
import type { Db, DbKind, Tx } from '../../adapters/db/index.ts';
import { readJson, toJson } from '../../adapters/db/index.ts';
import { lockOrganization } from '../accounts/public.ts';

export interface InboxRow {
  id: string;
  organizationId: string;
  address: string;
  name: string | null;
  createdAt: string;
}

export interface MessageRow {
  id: string;
  inboxId: string;
  organizationId: string;
  sesMessageId: string;
  fromAddress: string;
  subject: string;
  bodyText: string;
  bodyHtml: string;
  urls: string[];
  receivedAt: string;
  createdAt: string;
  seq: number;
  /** The raw header block as received; null for messages stored before it was kept. */
  rawHeaders: string | null;
}

const messageListColumns = [
  'id',
  'fromAddress',
  'subject',
  'bodyText',
  'bodyHtml',
  'receivedAt',
  'urls',
] as const;

/** A message as listed: `urls` is the stored JSON array text. */
export type MessageListRow = Omit<Pick<MessageRow, (typeof messageListColumns)[number]>, 'urls'> & {
  urls: string;
};

export type InboxRef = { id: string } | { address: string };

const inboxColumns = ['id', 'organizationId', 'address', 'name', 'createdAt'] as const;

/** Rows per INSERT: PostgreSQL allows 65535 bind parameters, 13 per message. */
const insertChunk = 500;

export class InboxRepository {
  readonly db: Db;
  readonly kind: DbKind;

  constructor(options: { db: Db; kind: DbKind }) {
    this.db = options.db;
    this.kind = options.kind;
  }

  /**
   * Inserts an inbox unless the organization already has `max`; the count and the insert
   * share a transaction (and, on PostgreSQL, a lock on the organization row) so two
   * concurrent creations cannot both take the last place.
   */
  async insertInboxWithin(inbox: InboxRow, max: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (this.kind === 'postgres') await lockOrganization(trx, inbox.organizationId);
      const { count } = await trx
        .selectFrom('emailInboxes')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organizationId', '=', inbox.organizationId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= max) return false;
      await trx.insertInto('emailInboxes').values(inbox).execute();
      return true;
    });
  }

  listInboxes(organizationId: string): Promise<InboxRow[]> {
    return this.db
      .selectFrom('emailInboxes')
      .select(inboxColumns)
      .where('organizationId', '=', organizationId)
      .orderBy('createdAt', 'asc')
      .orderBy('id', 'asc')
      .execute();
  }

  /** Messages not yet expired, per inbox of the organization. */
  async countMessages(organizationId: string, cutoff: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('emailMessages')
      .select(['inboxId', (eb) => eb.fn.countAll<number>().as('count')])
      .where('organizationId', '=', organizationId)
      .where('receivedAt', '>=', cutoff)
      .groupBy('inboxId')
      .execute();
    return new Map(rows.map((row) => [row.inboxId, Number(row.count)]));
  }

  findInbox(organizationId: string, ref: InboxRef): Promise<InboxRow | undefined> {
    let query = this.db
      .selectFrom('emailInboxes')
      .select(inboxColumns)
      .where('organizationId', '=', organizationId);
    query = 'id' in ref ? query.where('id', '=', ref.id) : query.where('address', '=', ref.address);
    return query.executeTakeFirst();
  }

  /** Any organization's inbox by address: the SMTP side resolves recipients with it. */
  findInboxByAddress(address: string): Promise<InboxRow | undefined> {
    return this.db
      .selectFrom('emailInboxes')
      .select(inboxColumns)
      .where('address', '=', address)
      .executeTakeFirst();
  }

  async deleteInbox(inboxId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('emailMessages').where('inboxId', '=', inboxId).execute();
      await trx.deleteFrom('emailInboxes').where('id', '=', inboxId).execute();
    });
  }

  /**
   * Stores messages and evicts, per touched inbox, everything older than its newest `max`,
   * all in one transaction. Messages of inboxes deleted meanwhile are dropped.
   */
  async insertMessages(messages: MessageRow[], max: number): Promise<void> {
    if (messages.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      const inboxIds = [...new Set(messages.map((message) => message.inboxId))];
      const existing = new Set(
        (await trx.selectFrom('emailInboxes').select('id').where('id', 'in', inboxIds).execute()).map(
          (row) => row.id,
        ),
      );
      const rows = messages
        .filter((message) => existing.has(message.inboxId))
        .map((message) => ({ ...message, urls: toJson(message.urls) }));
      for (let start = 0; start < rows.length; start += insertChunk) {
        await trx
          .insertInto('emailMessages')
          .values(rows.slice(start, start + insertChunk))
          .execute();
      }
      for (const inboxId of existing) await evictBeyond(trx, inboxId, max);
    });
  }

  /**
   * Newest first; only messages received at or after `from`; only the listed columns, with
   * `urls` as the stored JSON text (the list route embeds it without parsing it). The
   * `(inboxId, receivedAt, seq)` index serves both the filter and the order (no sort step).
   */
  listMessages(inboxId: string, from: string): Promise<MessageListRow[]> {
    return this.db
      .selectFrom('emailMessages')
      .select(messageListColumns)
      .where('inboxId', '=', inboxId)
      .where('receivedAt', '>=', from)
      .orderBy('receivedAt', 'desc')
      .orderBy('seq', 'desc')
      .execute();
  }

  async findMessage(inboxId: string, messageId: string, cutoff: string): Promise<MessageRow | undefined> {
    const row = await this.db
      .selectFrom('emailMessages')
      .selectAll()
      .where('inboxId', '=', inboxId)
      .where('id', '=', messageId)
      .where('receivedAt', '>=', cutoff)
      .executeTakeFirst();
    return (
      row && {
        ...row,
        seq: Number(row.seq),
        urls: readJson(z.array(z.string()), row.urls, [], `emailMessages ${row.id}/urls`),
      }
    );
  }

  /** Deletes one message of an inbox; false when it was not there. */
  async deleteMessage(inboxId: string, messageId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('emailMessages')
      .where('inboxId', '=', inboxId)
      .where('id', '=', messageId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Deletes messages received before `cutoff`; returns how many. */
  async deleteExpired(cutoff: string, inboxId?: string): Promise<number> {
    let query = this.db.deleteFrom('emailMessages').where('receivedAt', '<', cutoff);
    if (inboxId) query = query.where('inboxId', '=', inboxId);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Deletes the messages of an inbox older than its newest `max` (by arrival order). */
async function evictBeyond(trx: Tx, inboxId: string, max: number): Promise<void> {
  const boundary = await trx
    .selectFrom('emailMessages')
    .select(['receivedAt', 'seq'])
    .where('inboxId', '=', inboxId)
    .orderBy('receivedAt', 'desc')
    .orderBy('seq', 'desc')
    .offset(max)
    .limit(1)
    .executeTakeFirst();
  if (!boundary) return;
  await trx
    .deleteFrom('emailMessages')
    .where('inboxId', '=', inboxId)
    .where((eb) =>
      eb.or([
        eb('receivedAt', '<', boundary.receivedAt),
        eb.and([eb('receivedAt', '=', boundary.receivedAt), eb('seq', '<=', boundary.seq)]),
      ]),
    )
    .execute();
}
