/**
 * What other modules may use of the runs module: starting a run (the schedules module fires
 * through `startRun`) and the few reads of the runs tables others need. Nothing else of
 * runs/ is imported from outside (test/architecture.test.ts).
 */

// The history module records each ended run's results from here.
// The visual module refuses an approval whose baselines would pass the organization's quota.
export { organizationQuotaRefusal } from './artifacts.ts';
export { type RunOutcome, runOutcome } from './outcome-repository.ts';
export { activeStatuses } from './queue/lifecycle.ts';
export { findRunOwner, hasActiveRunOfSchedule, runOfScheduleCreatedSince } from './repository.ts';
// The process's run slots and wake-ups, created with the app and kept on its context.
export {
  type RunFailureTriage,
  RunsRuntime,
  type RunVisualChecks,
  type VisualChangePictures,
  type VisualCheckKey,
  type VisualCheckResult,
} from './runtime.ts';
export { startRun } from './trigger.ts';
// History keeps one verdict per test and run; a data-driven test has one result per row.
export { worstPerTest } from './worst-result.ts';
