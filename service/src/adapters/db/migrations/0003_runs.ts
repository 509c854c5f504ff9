import type { Kysely } from 'kysely';

export interface RunsTables {
  runs: {
    id: string;
    organizationId: string;
    projectId: string;
    branchId: string;
    branchName: string;
    name: string;
    /** pending | queued | running | completed | failed | cancelled */
    status: string;
    /** `single` (per-test endpoint) or `bulk` (list/tag endpoint); cooldowns key on it. */
    mode: string;
    targetType: string;
    targetId: string;
    targetName: string;
    /** The test of a single-test/directory run; null for bulk runs. */
    testId: string | null;
    testName: string | null;
    testRevisionId: string | null;
    scheduleId: string | null;
    scheduleType: string | null;
    scheduleName: string | null;
    /** apiKey | schedule | manual, and the API key name / schedule name / user email. */
    triggerType: string;
    triggerName: string;
    /** The resolved run config (JSON). */
    config: string;
    vars: string | null;
    parameters: string | null;
    metadata: string | null;
    totalTests: number;
    stats: string | null;
    report: string | null;
    runnerError: string | null;
    duration: number | null;
    /** Which runner process holds the run, and when it last said so (ms since epoch). */
    runnerId: string | null;
    heartbeatAt: number | null;
    createdAt: string;
    queuedAt: string | null;
    startedAt: string | null;
    completedAt: string | null;
    cancelledAt: string | null;
  };
  runTests: {
    runId: string;
    testId: string;
    testName: string;
    position: number;
    status: string | null;
    duration: number | null;
    errorMessage: string | null;
    errorLocation: string | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('branchId', 'text', (c) => c.notNull())
    .addColumn('branchName', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('targetType', 'text', (c) => c.notNull())
    .addColumn('targetId', 'text', (c) => c.notNull())
    .addColumn('targetName', 'text', (c) => c.notNull())
    .addColumn('testId', 'text')
    .addColumn('testName', 'text')
    .addColumn('testRevisionId', 'text')
    .addColumn('scheduleId', 'text')
    .addColumn('scheduleType', 'text')
    .addColumn('scheduleName', 'text')
    .addColumn('triggerType', 'text', (c) => c.notNull())
    .addColumn('triggerName', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('vars', 'text')
    .addColumn('parameters', 'text')
    .addColumn('metadata', 'text')
    .addColumn('totalTests', 'integer', (c) => c.notNull())
    .addColumn('stats', 'text')
    .addColumn('report', 'text')
    .addColumn('runnerError', 'text')
    .addColumn('duration', 'integer')
    .addColumn('runnerId', 'text')
    .addColumn('heartbeatAt', 'bigint')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('queuedAt', 'text')
    .addColumn('startedAt', 'text')
    .addColumn('completedAt', 'text')
    .addColumn('cancelledAt', 'text')
    .execute();
  await db.schema
    .createIndex('runs_project_created')
    .on('runs')
    .columns(['projectId', 'createdAt'])
    .execute();
  await db.schema.createIndex('runs_org_status').on('runs').columns(['organizationId', 'status']).execute();
  await db.schema.createIndex('runs_status_created').on('runs').columns(['status', 'createdAt']).execute();
  await db.schema
    .createTable('runTests')
    .addColumn('runId', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('testId', 'text', (c) => c.notNull())
    .addColumn('testName', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('status', 'text')
    .addColumn('duration', 'integer')
    .addColumn('errorMessage', 'text')
    .addColumn('errorLocation', 'text')
    .addPrimaryKeyConstraint('runTests_pk', ['runId', 'testId'])
    .execute();
  await db.schema.createIndex('runTests_test').on('runTests').column('testId').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('runTests').execute();
  await db.schema.dropTable('runs').execute();
}
