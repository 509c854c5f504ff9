import type { Kysely } from 'kysely';

/** Columns this migration adds to tables of earlier ones (schema.ts joins them in). */
export interface TestDataSetsColumns {
  testRevisions: {
    /**
     * The test's data table (JSON `{ columns, rows, nameColumn? }`): the test runs once per row.
     * Null for a test without one. Kept on the revision like `config`: branches and saved
     * revisions carry it.
     */
    dataSet: string | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('testRevisions').addColumn('dataSet', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('testRevisions').dropColumn('dataSet').execute();
}
