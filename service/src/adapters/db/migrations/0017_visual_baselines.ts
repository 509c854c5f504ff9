import type { Kysely } from 'kysely';

export interface VisualBaselinesTables {
  /**
   * The approved screenshot of one `assertScreenshot` step on one branch, per browser and
   * viewport (`1280x720`). A branch without its own row uses its project's default branch's
   * (modules/visual). The picture is a blob under `visual/`, replaced (and the old blob
   * deleted) when a newer one is approved.
   */
  visualBaselines: {
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
    /** The run whose screenshot was approved, and who approved it when. */
    sourceRunId: string | null;
    approvedBy: string;
    approvedAt: string;
  };
  /**
   * A screenshot of a run that is not its baseline: `new` (no baseline yet, the step passed)
   * or `changed` (beyond the threshold, the step failed), until someone approves it (it becomes
   * the branch's baseline) or rejects it.
   */
  visualChanges: {
    id: string;
    organizationId: string;
    projectId: string;
    branchId: string;
    runId: string;
    testId: string;
    testName: string;
    stepId: string;
    stepName: string;
    browser: string;
    viewport: string;
    status: 'new' | 'changed';
    diffPixels: number;
    ratio: number;
    width: number;
    height: number;
    /** Run artifacts (`runs/<runId>/tests/...`): null when a cap left the picture out. */
    actualKey: string | null;
    diffKey: string | null;
    /** The baseline compared against (its branch may be the parent's). */
    baselineId: string | null;
    decision: 'pending' | 'approved' | 'rejected';
    decidedBy: string | null;
    decidedAt: string | null;
    createdAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('visualBaselines')
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
    .addUniqueConstraint('visualBaselines_key', ['branchId', 'testId', 'stepId', 'browser', 'viewport'])
    .execute();
  await db.schema
    .createTable('visualChanges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('branchId', 'text', (c) => c.notNull())
    .addColumn('runId', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('testId', 'text', (c) => c.notNull())
    .addColumn('testName', 'text', (c) => c.notNull())
    .addColumn('stepId', 'text', (c) => c.notNull())
    .addColumn('stepName', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('viewport', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('diffPixels', 'integer', (c) => c.notNull())
    .addColumn('ratio', 'double precision', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('actualKey', 'text')
    .addColumn('diffKey', 'text')
    .addColumn('baselineId', 'text')
    .addColumn('decision', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('decidedBy', 'text')
    .addColumn('decidedAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('visualChanges_run').on('visualChanges').column('runId').execute();
  await db.schema
    .createIndex('visualChanges_branch')
    .on('visualChanges')
    .columns(['branchId', 'createdAt'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('visualChanges').execute();
  await db.schema.dropTable('visualBaselines').execute();
}
