import type { Kysely } from 'kysely';

export interface PresetsAuditTables {
  /** Named run configurations of a project (the console's "config presets"). */
  presets: {
    id: string;
    organizationId: string;
    projectId: string;
    name: string;
    /** The run configuration as JSON (the contract's run-config schema). */
    config: string;
    createdAt: string;
    updatedAt: string;
  };
  /** The preset a schedule names (a table of its own: the schedules table is not this module's). */
  schedulePresets: {
    scheduleId: string;
    presetId: string;
  };
  /**
   * Append-only record of every changing request. Written before the change runs (status
   * null: outcome unknown) and completed with the response status, so no change can exist
   * without its entry and an entry never claims a success that did not happen.
   */
  auditLog: {
    id: string;
    organizationId: string;
    projectId: string | null;
    createdAt: string;
    /** `user` or `apiKey`. */
    actorType: string;
    /** The user's id or the API key's id. */
    actorId: string;
    /** The user's email, or the API key's name and its 8-character prefix. */
    actorLabel: string;
    /** `METHOD route`, e.g. `POST /console/v1/api-keys`. */
    action: string;
    resourceType: string;
    resourceId: string | null;
    /** The response status; null while the request is in flight (or if the process died). */
    status: number | null;
    ip: string;
    userAgent: string;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('presets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addUniqueConstraint('presets_project_name', ['projectId', 'name'])
    .execute();
  await db.schema
    .createTable('auditLog')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('projectId', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('actorType', 'text', (c) => c.notNull())
    .addColumn('actorId', 'text', (c) => c.notNull())
    .addColumn('actorLabel', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resourceType', 'text', (c) => c.notNull())
    .addColumn('resourceId', 'text')
    .addColumn('status', 'integer')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('userAgent', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('auditLog_org_created')
    .on('auditLog')
    .columns(['organizationId', 'createdAt'])
    .execute();
  await db.schema.createIndex('auditLog_created').on('auditLog').column('createdAt').execute();
  await db.schema
    .createTable('schedulePresets')
    .addColumn('scheduleId', 'text', (c) => c.primaryKey())
    .addColumn('presetId', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('schedulePresets_preset').on('schedulePresets').column('presetId').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('schedulePresets').execute();
  await db.schema.dropTable('auditLog').execute();
  await db.schema.dropTable('presets').execute();
}
