import type { Kysely } from 'kysely';

export interface InstallAdminTables {
  /**
   * The people who run the install (not one organization): they create, suspend and delete
   * organizations and set their subscription and limits. The bootstrap admin is the first;
   * an install admin grants more. A user's row goes with the user (cascade).
   */
  installAdmins: { userId: string; grantedByUserId: string | null; createdAt: string };
}

/** Columns this migration adds to tables of earlier ones (schema.ts joins them in). */
export interface InstallAdminColumns {
  organizations: {
    /** Set while an install admin holds the organization suspended: its keys and sessions are refused. */
    suspendedAt: string | null;
    /** Set when an install admin deleted the organization: it is purged once this time passes. */
    deleteAfter: string | null;
  };
  apiKeys: {
    /** The creating user's email, kept when the user is gone (null for internal keys). */
    createdByEmail: string | null;
  };
  schedules: {
    /** Why the last firing was skipped (a lapsed subscription, a run still active). */
    lastSkipReason: string | null;
  };
  auditLog: {
    /** What the request did beyond its route, in words (`API keys revoked: 2`); null for most. */
    detail: string | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('installAdmins')
    .addColumn('userId', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('grantedByUserId', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('organizations').addColumn('suspendedAt', 'text').execute();
  await db.schema.alterTable('organizations').addColumn('deleteAfter', 'text').execute();
  await db.schema.alterTable('apiKeys').addColumn('createdByEmail', 'text').execute();
  await db.schema.alterTable('schedules').addColumn('lastSkipReason', 'text').execute();
  await db.schema.alterTable('auditLog').addColumn('detail', 'text').execute();
  // Whoever could create organizations before (the install organization's owners) keeps that right.
  await db
    .insertInto('installAdmins')
    .columns(['userId', 'grantedByUserId', 'createdAt'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .innerJoin('install', 'install.organizationId', 'users.organizationId')
        .where('users.role', '=', 'owner')
        .select(['users.id', eb.val(null).as('grantedByUserId'), 'users.createdAt']),
    )
    .execute();
  await db
    .updateTable('apiKeys')
    .set((eb) => ({
      createdByEmail: eb
        .selectFrom('users')
        .select('users.email')
        .whereRef('users.id', '=', 'apiKeys.createdByUserId'),
    }))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('auditLog').dropColumn('detail').execute();
  await db.schema.alterTable('schedules').dropColumn('lastSkipReason').execute();
  await db.schema.alterTable('apiKeys').dropColumn('createdByEmail').execute();
  await db.schema.alterTable('organizations').dropColumn('deleteAfter').execute();
  await db.schema.alterTable('organizations').dropColumn('suspendedAt').execute();
  await db.schema.dropTable('installAdmins').execute();
}
