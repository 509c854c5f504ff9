import type { Kysely } from 'kysely';

/** Columns this migration adds to tables of earlier ones (schema.ts joins them in). */
export interface OrganizationQuotasColumns {
  organizations: {
    /**
     * The most the organization's runs store as artifacts, in bytes, set by an install admin;
     * null: the install's `ORG_ARTIFACTS_MAX_BYTES`.
     */
    artifactQuotaBytes: number | null;
    /** The most email inboxes the organization holds, set by an install admin; null: the spec's 5. */
    inboxLimit: number | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // bigint: a quota reaches 1 TiB, past a 32-bit integer (the pg adapter reads int8 as a number).
  await db.schema.alterTable('organizations').addColumn('artifactQuotaBytes', 'bigint').execute();
  await db.schema.alterTable('organizations').addColumn('inboxLimit', 'integer').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('inboxLimit').execute();
  await db.schema.alterTable('organizations').dropColumn('artifactQuotaBytes').execute();
}
