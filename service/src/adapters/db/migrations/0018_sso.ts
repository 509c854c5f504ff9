import type { Kysely } from 'kysely';

export interface SsoTables {
  /**
   * An organization's OpenID Connect provider (at most one). The client secret is stored
   * sealed (AES-256-GCM under an install secret, modules/sso/secret-box.ts), never in clear.
   * JSON columns: `emailDomains` (string[]) and `roleMappings` ({ group, role }[]).
   */
  ssoProviders: {
    organizationId: string;
    /** What people type on the sign-in page to find the organization (unique). */
    slug: string;
    emailDomains: string;
    issuerUrl: string;
    clientId: string;
    clientSecretSealed: string;
    groupsClaim: string;
    roleMappings: string;
    /** `owner`, `admin`, `member`, or `none` (no access when no group matches). */
    defaultRole: string;
    ssoRequired: number;
    /** The one owner who may still sign in with a password while SSO is required. */
    breakGlassUserId: string | null;
    createdAt: string;
    updatedAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ssoProviders')
    .addColumn('organizationId', 'text', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('emailDomains', 'text', (c) => c.notNull())
    .addColumn('issuerUrl', 'text', (c) => c.notNull())
    .addColumn('clientId', 'text', (c) => c.notNull())
    .addColumn('clientSecretSealed', 'text', (c) => c.notNull())
    .addColumn('groupsClaim', 'text', (c) => c.notNull())
    .addColumn('roleMappings', 'text', (c) => c.notNull())
    .addColumn('defaultRole', 'text', (c) => c.notNull())
    .addColumn('ssoRequired', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('breakGlassUserId', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ssoProviders').execute();
}
