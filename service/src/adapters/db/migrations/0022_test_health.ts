import type { Kysely } from 'kysely';

export interface TestHealthTables {
  /**
   * Where each test stands on each branch, derived from its latest results (`testResults`)
   * each time a run of it is recorded: the project's flaky and failing lists read this small
   * table instead of every result of the project.
   */
  testHealth: {
    testId: string;
    branchId: string;
    /** The branch's name when the test last ran on it (the lists filter by id or name). */
    branchName: string;
    organizationId: string;
    projectId: string;
    /** The test's name in its latest recorded run (names change; results keep ids). */
    testName: string;
    lastRunId: string;
    lastStatus: string;
    lastResultAt: string;
    /** The first result of the current failure streak; null when the latest result passed. */
    failingSinceRunId: string | null;
    failingSinceAt: string | null;
    failingSinceCommit: string | null;
    /** Over the latest `sampleSize` decided results, 0..1 (null without any). */
    passRate: number | null;
    flakeRate: number | null;
    sampleSize: number;
    updatedAt: string;
  };
  /**
   * Each time a test was put in or taken out of quarantine, by a person or by the flake and
   * release rules, with the evidence the rule saw: kept after the quarantine row is gone.
   */
  testQuarantineEvents: {
    id: string;
    organizationId: string;
    projectId: string;
    testId: string;
    /** quarantined | released */
    kind: string;
    /** 1 when the flake or release rule did it. */
    automatic: number;
    actor: string;
    reason: string;
    /** JSON `{results, passes, passRateLowerBound, releaseAt}`, or null. */
    evidence: string | null;
    createdAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('testHealth')
    .addColumn('testId', 'text', (c) => c.notNull())
    .addColumn('branchId', 'text', (c) => c.notNull())
    .addColumn('branchName', 'text', (c) => c.notNull())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('testName', 'text', (c) => c.notNull())
    .addColumn('lastRunId', 'text', (c) => c.notNull())
    .addColumn('lastStatus', 'text', (c) => c.notNull())
    .addColumn('lastResultAt', 'text', (c) => c.notNull())
    .addColumn('failingSinceRunId', 'text')
    .addColumn('failingSinceAt', 'text')
    .addColumn('failingSinceCommit', 'text')
    .addColumn('passRate', 'double precision')
    .addColumn('flakeRate', 'double precision')
    .addColumn('sampleSize', 'integer', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('testHealth_pk', ['testId', 'branchId'])
    .execute();
  // The project's lists on one branch.
  await db.schema
    .createIndex('testHealth_project_branch')
    .on('testHealth')
    .columns(['projectId', 'branchId'])
    .execute();
  await db.schema
    .createTable('testQuarantineEvents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('testId', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('automatic', 'integer', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('evidence', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('testQuarantineEvents_project_created')
    .on('testQuarantineEvents')
    .columns(['projectId', 'createdAt'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('testQuarantineEvents').execute();
  await db.schema.dropTable('testHealth').execute();
}
