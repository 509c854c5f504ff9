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
import type { TestHistoryTables } from './migrations/0015_test_history.ts';
import type { InstallAdminColumns, InstallAdminTables } from './migrations/0016_install_admin.ts';
import type { VisualBaselinesTables } from './migrations/0017_visual_baselines.ts';
import type { SsoTables } from './migrations/0018_sso.ts';
import type { InstallSettingsTables } from './migrations/0019_install_settings.ts';
import type { EnvironmentsColumns, EnvironmentsTables } from './migrations/0020_environments.ts';
import type { OrganizationQuotasColumns } from './migrations/0021_organization_quotas.ts';
import type { TestHealthTables } from './migrations/0022_test_health.ts';
import type { TestDataSetsColumns } from './migrations/0023_test_data_sets.ts';
import type { SealedSecretsTables } from './migrations/0024_sealed_secrets.ts';
import type { AlertDeliveriesTables } from './migrations/0025_alert_deliveries.ts';
import type { VisualBaselineHistoryTables } from './migrations/0026_visual_baseline_history.ts';

/** The inbox tables with the columns later migrations added to them. */
type InboxesTablesNow = Omit<InboxesTables, 'emailMessages'> & {
  emailMessages: InboxesTables['emailMessages'] & MessageHeadersColumns['emailMessages'];
};

/** The foundation's tables with the columns the install-admin and quota migrations added. */
type FoundationTablesNow = Omit<FoundationTables, 'organizations' | 'apiKeys'> & {
  organizations: FoundationTables['organizations'] &
    InstallAdminColumns['organizations'] &
    OrganizationQuotasColumns['organizations'];
  apiKeys: FoundationTables['apiKeys'] & InstallAdminColumns['apiKeys'];
};
type SchedulesTablesNow = Omit<SchedulesTables, 'schedules'> & {
  schedules: SchedulesTables['schedules'] &
    InstallAdminColumns['schedules'] &
    EnvironmentsColumns['schedules'];
};
type PresetsAuditTablesNow = Omit<PresetsAuditTables, 'auditLog' | 'presets'> & {
  auditLog: PresetsAuditTables['auditLog'] & InstallAdminColumns['auditLog'];
  presets: PresetsAuditTables['presets'] & EnvironmentsColumns['presets'];
};
/** The tests tables with each revision's data set. */
type TestsTablesNow = Omit<TestsTables, 'testRevisions'> & {
  testRevisions: TestsTables['testRevisions'] & TestDataSetsColumns['testRevisions'];
};
/** The runs tables with the environment a run uses. */
type RunsTablesNow = Omit<RunsTables, 'runs'> & {
  runs: RunsTables['runs'] & EnvironmentsColumns['runs'];
};

export interface Database
  extends FoundationTablesNow,
    TestsTablesNow,
    RunsTablesNow,
    WebhooksTables,
    InboxesTablesNow,
    SchedulesTablesNow,
    RunProcessesTables,
    PresetsAuditTablesNow,
    RunBatchesTables,
    RunArtifactsTables,
    TestHistoryTables,
    InstallAdminTables,
    VisualBaselinesTables,
    SsoTables,
    EnvironmentsTables,
    InstallSettingsTables,
    TestHealthTables,
    SealedSecretsTables,
    AlertDeliveriesTables,
    VisualBaselineHistoryTables {}
