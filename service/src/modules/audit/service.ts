import type { AuditEntry } from '@stepdeck/contract';
import type { CompiledQuery } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../../adapters/db/index.ts';
import { type Clock, isoNow } from '../../clock.ts';
import {
  type AuditFilters,
  type AuditOutcome,
  type AuditRow,
  auditEntryInsert,
  completeAuditEntry,
  countAuditEntries,
  insertAuditEntry,
  listAuditEntries,
  purgeAuditEntriesBefore,
  upsertAuditEntry,
} from './repository.ts';

/** Who made a changing request, as the auth hook resolved it. */
export type AuditActor =
  | { kind: 'user'; userId: string; email: string; organizationId: string }
  | { kind: 'apiKey'; apiKeyId: string; apiKeyName: string; apiKeyPrefix: string; organizationId: string };

/** What is recorded of a request: never its body, headers beyond the user agent, or a secret. */
export interface AuditRequest {
  actor: AuditActor;
  action: string;
  resourceType: string;
  resourceId: string | null;
  projectId: string | null;
  ip: string;
  userAgent: string;
  /** Known already when the request was refused before its handler ran. */
  status?: number;
  /** What the request did beyond its route, in words. */
  detail?: string | undefined;
}

const purgeEveryMs = 60 * 60 * 1000;
/** Export is one response: past this many entries, narrow the filters. */
export const exportLimit = 50_000;

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  createdAt: row.createdAt,
  actor: { type: row.actorType === 'apiKey' ? 'apiKey' : 'user', id: row.actorId, label: row.actorLabel },
  action: row.action,
  resourceType: row.resourceType,
  resourceId: row.resourceId,
  organizationId: row.organizationId,
  projectId: row.projectId,
  status: row.status === null ? null : Number(row.status),
  ip: row.ip,
  userAgent: row.userAgent,
  detail: row.detail ?? null,
});

/** The audit log: each entry committed with the change it records, completed with its outcome. */
export class AuditLog {
  private lastPurge = 0;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly retentionDays: number;

  constructor(options: { db: Db; clock: Clock; retentionDays: number }) {
    this.db = options.db;
    this.clock = options.clock;
    this.retentionDays = options.retentionDays;
  }

  /** Writes the entry at once (a request refused before its handler: its status is known). */
  async record(request: AuditRequest): Promise<string> {
    const row = this.entryOf(request);
    await insertAuditEntry(this.db, row);
    await this.purgeExpired();
    return row.id;
  }

  /**
   * The entry of a request about to run, not written yet: `statement` inserts it (status null)
   * and is handed to the database adapter, which runs it inside the first transaction the
   * request's change opens, so the entry commits or rolls back with the change.
   */
  async prepare(request: AuditRequest): Promise<{ row: AuditRow; statement: CompiledQuery }> {
    const row = this.entryOf({ ...request, status: undefined });
    return { row, statement: auditEntryInsert(this.db, row) };
  }

  /**
   * Once the response is known: an entry that committed with a change gets its outcome; one
   * that did not (the request changed nothing, or its change rolled back) is written now, with
   * its outcome, on its own. `written` false also covers an entry the handler wrote in its own
   * transaction (request-entry.ts): the upsert completes it if that transaction committed.
   */
  async finish(row: AuditRow, written: boolean, outcome: AuditOutcome): Promise<void> {
    if (written) await completeAuditEntry(this.db, row.id, outcome);
    // Upsert: a transaction the request left running may still commit the entry it carried.
    else await upsertAuditEntry(this.db, row, outcome);
    await this.purgeExpired();
  }

  private entryOf(request: AuditRequest): AuditRow {
    const { actor } = request;
    const label = actor.kind === 'user' ? actor.email : `${actor.apiKeyName} (${actor.apiKeyPrefix})`;
    return {
      // Time-ordered (UUIDv7, monotonic within this process): entries of the same millisecond
      // list in the order they happened (listAuditEntries breaks createdAt ties by id).
      id: uuidv7(),
      organizationId: actor.organizationId,
      projectId: request.projectId,
      createdAt: isoNow(this.clock),
      actorType: actor.kind,
      actorId: actor.kind === 'user' ? actor.userId : actor.apiKeyId,
      actorLabel: label.slice(0, 512),
      action: request.action,
      resourceType: request.resourceType,
      resourceId: request.resourceId,
      status: request.status ?? null,
      ip: request.ip,
      userAgent: request.userAgent.slice(0, 512),
      detail: request.detail?.slice(0, 512) ?? null,
    };
  }

  /** One organization's entries, or (undefined) the whole install's. */
  async list(organizationId: string | undefined, filters: AuditFilters, page: number, limit: number) {
    const [total, rows] = await Promise.all([
      countAuditEntries(this.db, organizationId, filters),
      listAuditEntries(this.db, organizationId, filters, { limit, offset: (page - 1) * limit }),
    ]);
    const totalPages = Math.max(1, Math.ceil(total / limit));
    return {
      data: rows.map(toEntry),
      pagination: { page, limit, total, totalPages, hasMore: page * limit < total },
    };
  }

  async exportEntries(organizationId: string, filters: AuditFilters): Promise<AuditEntry[]> {
    const rows = await listAuditEntries(this.db, organizationId, filters, { limit: exportLimit, offset: 0 });
    return rows.map(toEntry);
  }

  /** Entries older than the retention period go, checked at most hourly as entries are written. */
  private async purgeExpired() {
    const now = this.clock.now().getTime();
    if (now - this.lastPurge < purgeEveryMs) return;
    this.lastPurge = now;
    const before = new Date(now - this.retentionDays * 24 * 60 * 60 * 1000).toISOString();
    await purgeAuditEntriesBefore(this.db, before);
  }
}

const csvColumns = [
  'createdAt',
  'actorType',
  'actor',
  'action',
  'resourceType',
  'resourceId',
  'organizationId',
  'projectId',
  'status',
  'ip',
  'userAgent',
] as const;

/** RFC 4180 fields; a leading = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
const csvField = (value: string | number | null) => {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export function auditCsv(entries: AuditEntry[]): string {
  const lines = [csvColumns.join(',')];
  for (const entry of entries) {
    lines.push(
      [
        entry.createdAt,
        entry.actor.type,
        entry.actor.label,
        entry.action,
        entry.resourceType,
        entry.resourceId,
        entry.organizationId,
        entry.projectId,
        entry.status,
        entry.ip,
        entry.userAgent,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
