import type { Kysely } from 'kysely';

export interface RunArtifactsTables {
  /**
   * The bytes each run stored as artifacts (`runs/<runId>/...`), added as they are stored
   * (modules/runs/artifacts.ts): `RUN_ARTIFACTS_MAX_BYTES` bounds one run, and the sum over an
   * organization's runs `ORG_ARTIFACTS_MAX_BYTES`. Runs stored before this table existed have
   * no row (count 0); a run's blobs and its row go together (the row cascades with the run).
   */
  runArtifacts: {
    runId: string;
    organizationId: string;
    bytes: number;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runArtifacts')
    .addColumn('runId', 'text', (c) => c.primaryKey().references('runs.id').onDelete('cascade'))
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('runArtifacts_organization')
    .on('runArtifacts')
    .column('organizationId')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('runArtifacts').execute();
}
