import type { Kysely } from 'kysely';

export interface AlertDeliveriesTables {
  /**
   * One alert a channel owes for a run (failed, recovered): recorded before any attempt, with
   * its message content fixed then, so retries send the same alert and a restart resumes the
   * pending ones. An attempt is claimed with a conditional UPDATE (`claimToken`, until
   * `claimedUntil`), so with several instances each attempt is made once.
   */
  alertDeliveries: {
    id: string;
    channelId: string;
    organizationId: string;
    runId: string;
    /** failed | recovered */
    event: string;
    /** pending | succeeded | failed */
    status: string;
    attempts: number;
    lastError: string | null;
    /** JSON: the alert's content (AlertContent), as read when the run ended. */
    content: string;
    nextAttemptAt: string | null;
    claimedUntil: string | null;
    claimToken: string | null;
    lastAttemptAt: string | null;
    completedAt: string | null;
    createdAt: string;
    updatedAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alertDeliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channelId', 'text', (c) => c.notNull().references('alertChannels.id').onDelete('cascade'))
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('runId', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lastError', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('nextAttemptAt', 'text')
    .addColumn('claimedUntil', 'text')
    .addColumn('claimToken', 'text')
    .addColumn('lastAttemptAt', 'text')
    .addColumn('completedAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addUniqueConstraint('alertDeliveries_once_per_run', ['channelId', 'runId', 'event'])
    .execute();
  await db.schema
    .createIndex('alertDeliveries_due')
    .on('alertDeliveries')
    .columns(['status', 'nextAttemptAt'])
    .execute();
  await db.schema
    .createIndex('alertDeliveries_channel')
    .on('alertDeliveries')
    .columns(['channelId', 'createdAt'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('alertDeliveries').ifExists().execute();
}
