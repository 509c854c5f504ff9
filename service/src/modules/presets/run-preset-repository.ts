import { type RunConfig, runConfig } from '@stepdeck/contract';
import { type Db, readJson } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';

/**
 * A preset as a run uses it: its config, layered under the run's own (`layerOverPreset`), and
 * the environment it picks, if any. A run reads it by the id its request names
 * (`presetOfProject`) or, as a schedule fires, by the schedule's link (`presetOfSchedule`).
 */
export interface PresetForRun {
  id: string;
  name: string;
  config: RunConfig;
  environment?: string;
}

/** The preset first, the run's own config over it (`use` and `viewport` merged field by field). */
export function layerOverPreset(preset: RunConfig, own: RunConfig | undefined): RunConfig {
  if (!own) return preset;
  return {
    ...preset,
    ...own,
    ...(preset.use || own.use ? { use: { ...preset.use, ...own.use } } : {}),
    ...(preset.viewport || own.viewport ? { viewport: { ...preset.viewport, ...own.viewport } } : {}),
  };
}

/** A preset of the project, for a run started with `presetId`; 404 when the project has none such. */
export async function presetOfProject(db: Db, projectId: string, presetId: string): Promise<PresetForRun> {
  const row = await db
    .selectFrom('presets')
    .select(['id', 'name', 'config', 'environment'])
    .where('id', '=', presetId)
    .where('projectId', '=', projectId)
    .executeTakeFirst();
  if (!row) throw appError('PRESET_NOT_FOUND');
  return {
    id: row.id,
    name: row.name,
    config: readJson(runConfig, row.config, {}, `presets ${row.id}/config`),
    ...(row.environment ? { environment: row.environment } : {}),
  };
}

/** The preset a schedule names, read as it fires: an edited preset applies to the next firing. */
export async function presetOfSchedule(db: Db, scheduleId: string): Promise<PresetForRun | undefined> {
  const row = await db
    .selectFrom('schedulePresets')
    .innerJoin('presets', 'presets.id', 'schedulePresets.presetId')
    .select(['presets.id', 'presets.name', 'presets.config', 'presets.environment'])
    .where('schedulePresets.scheduleId', '=', scheduleId)
    .executeTakeFirst();
  return row
    ? {
        id: row.id,
        name: row.name,
        config: readJson(runConfig, row.config, {}, `presets ${row.id}/config`),
        ...(row.environment ? { environment: row.environment } : {}),
      }
    : undefined;
}
