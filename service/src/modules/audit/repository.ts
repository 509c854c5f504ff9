import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import type { Database } from '../../adapters/db/schema.ts';

export type AuditRow = Database['auditLog'];

export interface AuditFilters {
  /** Substring of the actor's label (email, or key name and prefix). */
  actor?: string;
  /** Substring of `METHOD route`. */
  action?: string;
  /** Resource type, or a resource id. */
  resource?: string;
  from?: string;
  to?: string;
}

/** `tx`: the change's own transaction, when the code making the change writes its entry (request-entry.ts). */
export async function insertAuditEntry(db: Db | Tx, row: AuditRow): Promise<void> {
  await db.insertInto('auditLog').values(row).execute();
}

/** The entry's insert, compiled but not run: the database adapter runs it inside the change's transaction. */
export const auditEntryInsert = (db: Db, row: AuditRow) => db.insertInto('auditLog').values(row).compile();

/** What a finished request adds to its entry: the outcome, and for a create the record it made. */
export interface AuditOutcome {
  status: number;
  resource?: { resourceType: string; resourceId: string | null } | undefined;
  detail?: string | undefined;
}

const outcomeColumns = (outcome: AuditOutcome) => ({
  status: outcome.status,
  ...outcome.resource,
  ...(outcome.detail === undefined ? {} : { detail: outcome.detail.slice(0, 512) }),
});

export const upsertAuditEntry = (db: Db, row: AuditRow, outcome: AuditOutcome) =>
  db
    .insertInto('auditLog')
    .values({ ...row, ...outcomeColumns(outcome) })
    .onConflict((conflict) => conflict.column('id').doUpdateSet(outcomeColumns(outcome)))
    .execute();

/** One statement (one commit on its own) for the outcome and the created record. */
export const completeAuditEntry = (db: Db, id: string, outcome: AuditOutcome) =>
  db.updateTable('auditLog').set(outcomeColumns(outcome)).where('id', '=', id).execute();

/** Case-insensitive substring match, the user's text taken literally (`%` and `_` are no wildcards). */
const contains = (column: 'actorLabel' | 'action', text: string) => {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
};

/** `organizationId` undefined: every organization's entries (the install's log). */
function filtered(db: Db, organizationId: string | undefined, filters: AuditFilters) {
  let query = db.selectFrom('auditLog');
  if (organizationId !== undefined) query = query.where('organizationId', '=', organizationId);
  if (filters.actor) query = query.where(contains('actorLabel', filters.actor));
  if (filters.action) query = query.where(contains('action', filters.action));
  if (filters.resource) {
    const resource = filters.resource;
    query = query.where((eb) =>
      eb.or([eb('resourceType', '=', resource), eb('resourceId', '=', resource.toLowerCase())]),
    );
  }
  if (filters.from) query = query.where('createdAt', '>=', filters.from);
  if (filters.to) query = query.where('createdAt', '<=', filters.to);
  return query;
}

export async function countAuditEntries(db: Db, organizationId: string | undefined, filters: AuditFilters) {
  const row = await filtered(db, organizationId, filters)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Newest first; the id (time-ordered, service.ts) breaks ties between entries of the same millisecond. */
export const listAuditEntries = (
  db: Db,
  organizationId: string | undefined,
  filters: AuditFilters,
  page: { limit: number; offset: number },
): Promise<AuditRow[]> =>
  filtered(db, organizationId, filters)
    .selectAll()
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();

export const purgeAuditEntriesBefore = (db: Db, before: string) =>
  db.deleteFrom('auditLog').where('createdAt', '<', before).executeTakeFirst();
