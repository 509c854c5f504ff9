import type { Kysely } from 'kysely';

export interface InstallSettingsTables {
  /**
   * Settings of the whole install an install admin edits in the console, one row per group
   * (`webhookAllowedTargets`, `runnerEgress`, `smtpRelay`), its value JSON. A password inside
   * a value is sealed (secret-box.ts), never stored as plain text.
   */
  installSettings: { key: string; value: string; updatedAt: string; updatedBy: string | null };
  /**
   * Where an organization's run alerts go: a Slack or Microsoft Teams incoming webhook, or email
   * recipients through the install's SMTP relay; for a project's runs, or one schedule's.
   */
  alertChannels: {
    id: string;
    organizationId: string;
    projectId: string;
    /** Only this schedule's runs; null: every run of the project. */
    scheduleId: string | null;
    name: string;
    kind: 'slack' | 'teams' | 'email';
    /** The incoming-webhook URL (slack, teams); null for email. */
    url: string | null;
    /** JSON array of addresses (email); null otherwise. */
    recipients: string | null;
    onFailed: number;
    onRecovered: number;
    /** Alert on every failed run, not only the first of a streak. */
    everyFailure: number;
    enabled: number;
    lastSentAt: string | null;
    lastError: string | null;
    createdAt: string;
    updatedAt: string;
  };
  /**
   * The last outcome of a stream of runs (a schedule's, or one target's on one branch of a
   * project), so a failure after a failure and a pass after a failure are told apart.
   */
  alertStreams: {
    key: string;
    organizationId: string;
    lastStatus: string;
    lastRunId: string;
    updatedAt: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('installSettings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addColumn('updatedBy', 'text')
    .execute();
  await db.schema
    .createTable('alertChannels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('scheduleId', 'text', (c) => c.references('schedules.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('recipients', 'text')
    .addColumn('onFailed', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('onRecovered', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('everyFailure', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('lastSentAt', 'text')
    .addColumn('lastError', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alertChannelsProject').on('alertChannels').columns(['projectId']).execute();
  await db.schema
    .createTable('alertStreams')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('lastStatus', 'text', (c) => c.notNull())
    .addColumn('lastRunId', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('alertStreams').execute();
  await db.schema.dropTable('alertChannels').execute();
  await db.schema.dropTable('installSettings').execute();
}
