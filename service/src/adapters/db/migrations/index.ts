import type { Migration } from 'kysely/migration';
import * as foundation from './0001_foundation.ts';
import * as tests from './0002_tests.ts';
import * as runs from './0003_runs.ts';
import * as webhooks from './0004_webhooks.ts';
import * as inboxes from './0005_inboxes.ts';
import * as schedules from './0006_schedules.ts';
import * as testTreeKeys from './0007_test_tree_keys.ts';
import * as runProcesses from './0010_run_processes.ts';
import * as presetsAudit from './0011_presets_audit.ts';
import * as runBatches from './0012_run_batches.ts';
import * as messageHeaders from './0013_message_headers.ts';
import * as runArtifacts from './0014_run_artifacts.ts';
import * as testHistory from './0015_test_history.ts';
import * as installAdmin from './0016_install_admin.ts';
import * as visualBaselines from './0017_visual_baselines.ts';
import * as sso from './0018_sso.ts';
import * as installSettings from './0019_install_settings.ts';
import * as environments from './0020_environments.ts';
import * as organizationQuotas from './0021_organization_quotas.ts';
import * as testHealth from './0022_test_health.ts';
import * as testDataSets from './0023_test_data_sets.ts';
import * as sealedSecrets from './0024_sealed_secrets.ts';
import * as alertDeliveries from './0025_alert_deliveries.ts';
import * as visualBaselineHistory from './0026_visual_baseline_history.ts';

/** Ordered by name; a migration, once landed, is never edited: add a new one instead. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_tests': tests,
  '0003_runs': runs,
  '0004_webhooks': webhooks,
  '0005_inboxes': inboxes,
  '0006_schedules': schedules,
  '0007_test_tree_keys': testTreeKeys,
  '0010_run_processes': runProcesses,
  '0011_presets_audit': presetsAudit,
  '0012_run_batches': runBatches,
  '0013_message_headers': messageHeaders,
  '0014_run_artifacts': runArtifacts,
  '0015_test_history': testHistory,
  '0016_install_admin': installAdmin,
  '0017_visual_baselines': visualBaselines,
  '0018_sso': sso,
  '0019_install_settings': installSettings,
  '0020_environments': environments,
  '0021_organization_quotas': organizationQuotas,
  '0022_test_health': testHealth,
  '0023_test_data_sets': testDataSets,
  '0024_sealed_secrets': sealedSecrets,
  '0025_alert_deliveries': alertDeliveries,
  '0026_visual_baseline_history': visualBaselineHistory,
};
