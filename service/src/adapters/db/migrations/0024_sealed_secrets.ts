import type { Kysely } from 'kysely';

export interface SealedSecretsTables {
  /**
   * The ID token of a console session opened through single sign-on, sealed (secret-box.ts):
   * sign-out sends it to the provider as `id_token_hint`. Kept on the server only, never in a
   * cookie; it goes with its session.
   */
  ssoSessions: {
    sessionTokenHash: string;
    organizationId: string;
    idTokenSealed: string;
    expiresAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ssoSessions')
    .addColumn('sessionTokenHash', 'text', (c) =>
      c.primaryKey().references('sessions.tokenHash').onDelete('cascade'),
    )
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('idTokenSealed', 'text', (c) => c.notNull())
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ssoSessions').execute();
}
