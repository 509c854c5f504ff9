import type { Kysely } from 'kysely';

export interface RunBatchesTables {
  /**
   * The live queue of an orchestrated run (issue 21): its tests split into batches that free
   * runner slots claim, longest first, plus one `merge` unit taken by the slot that ends the
   * last batch. A run executed in one batch (a small run) has no rows here.
   */
  runBatches: {
    runId: string;
    /** Claim order (0 first: the longest expected work); the merge unit comes last. */
    position: number;
    /** `tests` or `merge`. */
    kind: string;
    /** JSON array of test ids, in run order. */
    testIds: string;
    /** Expected duration (history or estimate), ms. */
    expectedMs: number;
    /** pending | claimed | done | cancelled */
    status: string;
    /** Times the unit was claimed; a unit whose runner died is put back once. */
    attempts: number;
    runnerId: string | null;
    /** The slot that holds it: `runnerId#slot`. */
    slot: string | null;
    heartbeatAt: number | null;
    startedAt: string | null;
    completedAt: string | null;
    /** JSON: the batch's mapped test results, stats, runner error (null until done). */
    result: string | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runBatches')
    .addColumn('runId', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('testIds', 'text', (c) => c.notNull())
    .addColumn('expectedMs', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('runnerId', 'text')
    .addColumn('slot', 'text')
    .addColumn('heartbeatAt', 'bigint')
    .addColumn('startedAt', 'text')
    .addColumn('completedAt', 'text')
    .addColumn('result', 'text')
    .addPrimaryKeyConstraint('runBatches_pk', ['runId', 'position'])
    .execute();
  await db.schema.createIndex('runBatches_status').on('runBatches').columns(['status', 'runId']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('runBatches').execute();
}
