import type { Kysely } from 'kysely';

export interface WebhooksTables {
  webhooks: {
    id: string;
    organizationId: string;
    url: string;
    /** JSON array of event names. */
    events: string;
    enabled: number;
    /** Kept in clear so it can sign; never returned after create/rotate. */
    secret: string;
    /** JSON object or null. */
    customData: string | null;
    createdAt: string;
    updatedAt: string;
  };
  webhookDeliveries: {
    id: string;
    webhookId: string;
    organizationId: string;
    event: string;
    runId: string;
    /** `pending` (in progress), `succeeded`, `failed`. */
    status: string;
    /** Attempts made over the delivery's life (all cycles). */
    attempts: number;
    /** Attempts made in the current three-attempt cycle. */
    cycleAttempts: number;
    lastResponseCode: number | null;
    lastError: string | null;
    /** The exact bytes sent (UTF-8 JSON). */
    body: string;
    /** When the next attempt is due (pending only). */
    nextAttemptAt: string | null;
    /** An instance holding an attempt in flight; others skip the row until this passes. */
    claimedUntil: string | null;
    claimToken: string | null;
    lastAttemptAt: string | null;
    completedAt: string | null;
    createdAt: string;
    updatedAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('customData', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').columns(['organizationId']).execute();
  await db.schema
    .createTable('webhookDeliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhookId', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('runId', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cycleAttempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lastResponseCode', 'integer')
    .addColumn('lastError', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('nextAttemptAt', 'text')
    .addColumn('claimedUntil', 'text')
    .addColumn('claimToken', 'text')
    .addColumn('lastAttemptAt', 'text')
    .addColumn('completedAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addUniqueConstraint('webhookDeliveries_once_per_run', ['webhookId', 'runId', 'event'])
    .execute();
  await db.schema
    .createIndex('webhookDeliveries_due')
    .on('webhookDeliveries')
    .columns(['status', 'nextAttemptAt'])
    .execute();
  await db.schema
    .createIndex('webhookDeliveries_webhook')
    .on('webhookDeliveries')
    .columns(['webhookId', 'createdAt'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhookDeliveries').ifExists().execute();
  await db.schema.dropTable('webhooks').ifExists().execute();
}
