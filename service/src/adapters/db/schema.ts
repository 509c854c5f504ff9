/**
 * The database schema as Kysely sees it. Each module declares its own tables next to its
 * migration; this file only joins them. Conventions, kept portable between SQLite and
 * PostgreSQL: ids are UUID text, timestamps are ISO 8601 text (sortable), JSON is text,
 * booleans are 0/1 integers.
 */
import type { FoundationTables } from './migrations/0001_foundation.ts';
import type { TestsTables } from './migrations/0002_tests.ts';
import type { RunsTables } from './migrations/0003_runs.ts';
import type { WebhooksTables } from './migrations/0004_webhooks.ts';
import type { InboxesTables } from './migrations/0005_inboxes.ts';
import type { SchedulesTables } from './migrations/0006_schedules.ts';
import type { RunProcessesTables } from './migrations/0010_run_processes.ts';
import type { PresetsAuditTables } from './migrations/0011_presets_audit.ts';
import type { RunBatchesTables } from './migrations/0012_run_batches.ts';
import type { MessageHeadersColumns } from './migrations/0013_message_headers.ts';
import type { RunArtifactsTables } from './migrations/0014_run_artifacts.ts';

/** The inbox tables with the columns later migrations added to them. */
type InboxesTablesNow = Omit<InboxesTables, 'emailMessages'> & {
  emailMessages: InboxesTables['emailMessages'] & MessageHeadersColumns['emailMessages'];
};

export interface Database
  extends FoundationTables,
    TestsTables,
    RunsTables,
    WebhooksTables,
    InboxesTablesNow,
    SchedulesTables,
    RunProcessesTables,
    PresetsAuditTables,
    RunBatchesTables,
    RunArtifactsTables {}
