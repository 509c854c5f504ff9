import type { Kysely } from 'kysely';

export interface EnvironmentsTables {
  /**
   * Named sets of base URL and variables of a project (`staging`, `production`); a run, a
   * schedule or a preset picks one by name. `variables` is a JSON object of strings.
   */
  environments: {
    id: string;
    organizationId: string;
    projectId: string;
    name: string;
    baseURL: string | null;
    variables: string;
    createdAt: string;
    updatedAt: string;
  };
  /** An environment's secrets, kept as the project's are: write-only, listed by name. */
  environmentSecrets: {
    environmentId: string;
    name: string;
    value: string;
    createdAt: string;
    updatedAt: string;
  };
}

/** Columns this migration adds to tables of earlier ones (schema.ts joins them in). */
export interface EnvironmentsColumns {
  runs: {
    /** The environment the run uses (its variables and secrets are read when it executes). */
    environmentId: string | null;
    /** Its name when the run started, shown with the run even after a rename or deletion. */
    environmentName: string | null;
  };
  /** The environment a schedule's or a preset's runs pick, by name; null for none. */
  schedules: { environment: string | null };
  presets: { environment: string | null };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('baseURL', 'text')
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addUniqueConstraint('environments_project_name', ['projectId', 'name'])
    .execute();
  await db.schema
    .createTable('environmentSecrets')
    .addColumn('environmentId', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('environmentSecrets_pk', ['environmentId', 'name'])
    .execute();
  await db.schema.alterTable('runs').addColumn('environmentId', 'text').execute();
  await db.schema.alterTable('runs').addColumn('environmentName', 'text').execute();
  await db.schema.alterTable('schedules').addColumn('environment', 'text').execute();
  await db.schema.alterTable('presets').addColumn('environment', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('presets').dropColumn('environment').execute();
  await db.schema.alterTable('schedules').dropColumn('environment').execute();
  await db.schema.alterTable('runs').dropColumn('environmentName').execute();
  await db.schema.alterTable('runs').dropColumn('environmentId').execute();
  await db.schema.dropTable('environmentSecrets').execute();
  await db.schema.dropTable('environments').execute();
}
