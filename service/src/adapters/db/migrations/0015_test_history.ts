import type { Kysely } from 'kysely';

/** Columns this migration adds, and its tables (schema.ts joins them in). */
export interface TestHistoryTables {
  /**
   * One row per test per ended run (modules/history): what the run's report said of the test,
   * with where the code came from, kept `HISTORY_RETENTION_DAYS`. Step durations are a JSON
   * object on the row (step id → ms): they are only ever read with their row, for one test's
   * recent results, and a child table would hold ~20 rows per result.
   */
  testResults: {
    runId: string;
    testId: string;
    organizationId: string;
    projectId: string;
    testRevisionId: string | null;
    branchId: string;
    branchName: string;
    /** apiKey | schedule | manual */
    triggerType: string;
    /** passed | failed | skipped | flaky (passed on a retry) */
    status: string;
    duration: number;
    attempts: number;
    failedStepId: string | null;
    /** The failure normalised (history/fingerprint.ts); null unless failed. */
    fingerprint: string | null;
    errorMessage: string | null;
    /** JSON: { [stepId]: ms }, in document order (step ids are unique in a test). */
    stepDurations: string;
    commitSha: string | null;
    ref: string | null;
    pullRequest: number | null;
    label: string | null;
    createdAt: string;
  };
  /** A test in quarantine: it runs and is reported, but does not fail the action's or CLI's outcome. */
  testQuarantines: {
    testId: string;
    organizationId: string;
    projectId: string;
    reason: string;
    owner: string | null;
    expiresAt: string | null;
    /** Who quarantined it: an API key's name or a user's email. */
    createdBy: string;
    createdAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('testResults')
    .addColumn('runId', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('testId', 'text', (c) => c.notNull())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('testRevisionId', 'text')
    .addColumn('branchId', 'text', (c) => c.notNull())
    .addColumn('branchName', 'text', (c) => c.notNull())
    .addColumn('triggerType', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('failedStepId', 'text')
    .addColumn('fingerprint', 'text')
    .addColumn('errorMessage', 'text')
    .addColumn('stepDurations', 'text', (c) => c.notNull())
    .addColumn('commitSha', 'text')
    .addColumn('ref', 'text')
    .addColumn('pullRequest', 'integer')
    .addColumn('label', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('testResults_pk', ['runId', 'testId'])
    .execute();
  // A test's history, newest first.
  await db.schema
    .createIndex('testResults_test_created')
    .on('testResults')
    .columns(['testId', 'createdAt'])
    .execute();
  // "Known" failures: the same fingerprint on the base branch, or on the base git ref.
  await db.schema
    .createIndex('testResults_branch_fingerprint')
    .on('testResults')
    .columns(['projectId', 'branchId', 'fingerprint', 'createdAt'])
    .execute();
  await db.schema
    .createIndex('testResults_ref_fingerprint')
    .on('testResults')
    .columns(['projectId', 'ref', 'fingerprint', 'createdAt'])
    .execute();
  // Retention deletes by age.
  await db.schema.createIndex('testResults_created').on('testResults').column('createdAt').execute();
  await db.schema
    .createTable('testQuarantines')
    .addColumn('testId', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('expiresAt', 'text')
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('testQuarantines_project').on('testQuarantines').column('projectId').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('testQuarantines').execute();
  await db.schema.dropTable('testResults').execute();
}
