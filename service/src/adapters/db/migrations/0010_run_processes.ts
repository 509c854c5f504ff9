import type { Kysely } from 'kysely';

export interface RunProcessesTables {
  /**
   * Where a run's processes live while it executes: written when the runner creates the
   * run's work folder and spawns `playwright test`, deleted when the run lets go of them.
   * A row left behind belongs to a process that died: start-up recovery on the same host
   * ends any survivor and removes the folder.
   */
  runProcesses: {
    runId: string;
    /** `os.hostname()` of the runner: only a process on that host can end survivors. */
    host: string;
    /** The runner process (`runs.runnerId`: host:pid:nonce). */
    runnerId: string;
    /** The supervisor's process group (null until spawned). */
    processGroup: number | null;
    /** The run's temporary folder. */
    workDir: string;
    createdAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runProcesses')
    .addColumn('runId', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('runnerId', 'text', (c) => c.notNull())
    .addColumn('processGroup', 'integer')
    .addColumn('workDir', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('runProcesses_host').on('runProcesses').column('host').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('runProcesses').execute();
}
