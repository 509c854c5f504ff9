/**
 * What other modules may use of the presets module: the schedules module checks, records and
 * reads the preset a schedule names (and refuses, through a `PresetDeleteGuard`, the deletion of
 * one a schedule names), and remote runs layer a preset, through these (test/architecture.test.ts
 * checks that nothing else of presets/ is imported from outside).
 */

export { layerOverPreset } from './layering.ts';
export {
  checkPresetOfProject,
  linkSchedulePreset,
  presetIdsOfSchedules,
  presetOfProject,
  presetOfSchedule,
  scheduleIdsOfPreset,
} from './schedule-link-repository.ts';
export type { PresetDeleteGuard } from './service.ts';
