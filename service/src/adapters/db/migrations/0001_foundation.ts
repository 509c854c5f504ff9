import type { Kysely } from 'kysely';

export interface FoundationTables {
  install: { id: number; organizationId: string; createdAt: string };
  organizations: {
    id: string;
    name: string;
    subscriptionActive: number;
    concurrencyCap: number | null;
    createdAt: string;
  };
  users: {
    id: string;
    organizationId: string;
    email: string;
    passwordHash: string;
    role: 'owner' | 'admin' | 'member';
    createdAt: string;
  };
  sessions: { tokenHash: string; userId: string; expiresAt: string; createdAt: string };
  apiKeys: {
    id: string;
    organizationId: string;
    name: string;
    prefix: string;
    keyHash: string;
    scopes: string;
    createdByUserId: string | null;
    revokedAt: string | null;
    lastUsedAt: string | null;
    createdAt: string;
  };
  projects: { id: string; organizationId: string; name: string; defaultBranchId: string; createdAt: string };
  branches: {
    id: string;
    projectId: string;
    name: string;
    sourceBranchId: string | null;
    createdAt: string;
  };
  tags: { id: string; organizationId: string; name: string; createdAt: string };
  rateLimits: { key: string; windowStart: number; hits: number };
  /** Install-wide values generated once (signing keys). */
  settings: { key: string; value: string };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subscriptionActive', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('concurrencyCap', 'integer')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('install')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('passwordHash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('tokenHash', 'text', (c) => c.primaryKey())
    .addColumn('userId', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('apiKeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('keyHash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('createdByUserId', 'text')
    .addColumn('revokedAt', 'text')
    .addColumn('lastUsedAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('defaultBranchId', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_org').on('projects').column('organizationId').execute();
  await db.schema
    .createTable('branches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sourceBranchId', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addUniqueConstraint('branches_project_name', ['projectId', 'name'])
    .execute();
  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addUniqueConstraint('tags_org_name', ['organizationId', 'name'])
    .execute();
  await db.schema
    .createTable('rateLimits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('windowStart', 'bigint', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'settings',
    'rateLimits',
    'tags',
    'branches',
    'projects',
    'apiKeys',
    'sessions',
    'users',
    'install',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropTable('organizations').execute();
}
