/**
 * What other modules may use of the presets module: the schedules module checks and records the
 * preset a schedule names (and refuses, through a `PresetDeleteGuard`, the deletion of one a
 * schedule names); a run reads its preset, the one a request or a schedule names, and layers it
 * under its own config (test/architecture.test.ts checks that nothing else of presets/ is
 * imported from outside).
 */

export {
  layerOverPreset,
  type PresetForRun,
  presetOfProject,
  presetOfSchedule,
} from './run-preset-repository.ts';
export {
  checkPresetOfProject,
  linkSchedulePreset,
  presetIdsOfSchedules,
  scheduleIdsOfPreset,
} from './schedule-link-repository.ts';
export type { PresetDeleteGuard } from './service.ts';
