import type { Kysely } from 'kysely';

export interface SchedulesTables {
  schedules: {
    id: string;
    organizationId: string;
    projectId: string;
    branchId: string;
    name: string;
    /** JSON array of test or directory IDs, or null when the schedule targets a tag. */
    testIds: string | null;
    tagId: string | null;
    cron: string;
    timezone: string;
    /** JSON run-config override, or null. */
    config: string | null;
    enabled: number;
    scheduleType: string;
    /** The next tick to fire; null while disabled. Firing claims a tick by moving this forward. */
    nextRunAt: string | null;
    lastRunAt: string | null;
    lastRunId: string | null;
    lastSkippedAt: string | null;
    skippedCount: number;
    lastError: string | null;
    lastErrorAt: string | null;
    createdAt: string;
    updatedAt: string;
  };
  /** One row per claimed tick: the durable record that a tick fired once, and what it did. */
  scheduleFirings: {
    id: string;
    scheduleId: string;
    tickAt: string;
    firedAt: string;
    outcome: 'claimed' | 'firing' | 'started' | 'skipped' | 'failed';
    runId: string | null;
    message: string | null;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('branchId', 'text', (c) => c.notNull().references('branches.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('testIds', 'text')
    .addColumn('tagId', 'text')
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('config', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('scheduleType', 'text', (c) => c.notNull())
    .addColumn('nextRunAt', 'text')
    .addColumn('lastRunAt', 'text')
    .addColumn('lastRunId', 'text')
    .addColumn('lastSkippedAt', 'text')
    .addColumn('skippedCount', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lastError', 'text')
    .addColumn('lastErrorAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('schedules_org')
    .on('schedules')
    .columns(['organizationId', 'createdAt'])
    .execute();
  await db.schema.createIndex('schedules_due').on('schedules').columns(['enabled', 'nextRunAt']).execute();
  await db.schema.createIndex('schedules_project').on('schedules').column('projectId').execute();
  await db.schema
    .createTable('scheduleFirings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scheduleId', 'text', (c) => c.notNull().references('schedules.id').onDelete('cascade'))
    .addColumn('tickAt', 'text', (c) => c.notNull())
    .addColumn('firedAt', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('runId', 'text')
    .addColumn('message', 'text')
    .addUniqueConstraint('scheduleFirings_tick', ['scheduleId', 'tickAt'])
    .execute();
  await db.schema
    .createIndex('scheduleFirings_outcome')
    .on('scheduleFirings')
    .columns(['outcome', 'firedAt'])
    .execute();
  await db.schema.createIndex('scheduleFirings_fired').on('scheduleFirings').column('firedAt').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scheduleFirings').execute();
  await db.schema.dropTable('schedules').execute();
}
