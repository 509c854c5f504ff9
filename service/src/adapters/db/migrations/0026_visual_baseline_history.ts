import type { Kysely } from 'kysely';

export interface VisualBaselineHistoryTables {
  /**
   * Baselines a newer approval replaced, kept (with their blob) a few per key so the changes
   * compared against them still show the picture; older ones are deleted with their blob
   * (modules/visual). Their bytes count in the organization's artifact quota while kept. A row
   * keeps the id it had in `visualBaselines`, which `visualChanges.baselineId` names.
   */
  visualBaselineHistory: {
    id: string;
    organizationId: string;
    projectId: string;
    branchId: string;
    testId: string;
    stepId: string;
    browser: string;
    viewport: string;
    blobKey: string;
    bytes: number;
    width: number;
    height: number;
    sourceRunId: string | null;
    approvedBy: string;
    approvedAt: string;
    supersededAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('visualBaselineHistory')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('branchId', 'text', (c) => c.notNull().references('branches.id').onDelete('cascade'))
    .addColumn('testId', 'text', (c) => c.notNull())
    .addColumn('stepId', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('viewport', 'text', (c) => c.notNull())
    .addColumn('blobKey', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('sourceRunId', 'text')
    .addColumn('approvedBy', 'text', (c) => c.notNull())
    .addColumn('approvedAt', 'text', (c) => c.notNull())
    .addColumn('supersededAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('visualBaselineHistory_key')
    .on('visualBaselineHistory')
    .columns(['branchId', 'testId', 'stepId', 'browser', 'viewport', 'supersededAt'])
    .execute();
  await db.schema
    .createIndex('visualBaselineHistory_organization')
    .on('visualBaselineHistory')
    .column('organizationId')
    .execute();
  await db.schema
    .createIndex('visualBaselines_organization')
    .on('visualBaselines')
    .column('organizationId')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('visualBaselines_organization').execute();
  await db.schema.dropTable('visualBaselineHistory').execute();
}
