import type { Kysely } from 'kysely';

/** Columns this migration adds to tables of earlier ones (schema.ts joins them in). */
export interface MessageHeadersColumns {
  emailMessages: {
    /**
     * The received message's raw header block (everything before the first blank line), as
     * the console's viewer shows it; cut to `inboxLimits.rawHeadersMaxBytes` (64 KB) of UTF-8.
     * Null for messages stored before this column existed.
     */
    rawHeaders: string | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('emailMessages').addColumn('rawHeaders', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('emailMessages').dropColumn('rawHeaders').execute();
}
