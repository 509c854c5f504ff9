import { type RunConfig, runConfig } from '@stepdeck/contract';
import { type Db, readJson, type Tx } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';

/**
 * The preset a schedule names, kept by the presets module: schedules call these to check,
 * record and read the link, and a fired run layers the preset under the schedule's own config.
 */
export async function checkPresetOfProject(db: Db, projectId: string, presetId: string): Promise<void> {
  const found = await db
    .selectFrom('presets')
    .select('id')
    .where('id', '=', presetId)
    .where('projectId', '=', projectId)
    .executeTakeFirst();
  if (!found) throw appError('PRESET_NOT_FOUND');
}

export async function linkSchedulePreset(
  db: Db | Tx,
  scheduleId: string,
  presetId: string | null,
): Promise<void> {
  await db.deleteFrom('schedulePresets').where('scheduleId', '=', scheduleId).execute();
  if (presetId) await db.insertInto('schedulePresets').values({ scheduleId, presetId }).execute();
}

/** The schedules that name this preset. */
export async function scheduleIdsOfPreset(db: Db | Tx, presetId: string): Promise<string[]> {
  const links = await db
    .selectFrom('schedulePresets')
    .select('scheduleId')
    .where('presetId', '=', presetId)
    .execute();
  return links.map((link) => link.scheduleId);
}

export async function presetIdsOfSchedules(db: Db, scheduleIds: string[]): Promise<Map<string, string>> {
  if (scheduleIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('schedulePresets')
    .select(['scheduleId', 'presetId'])
    .where('scheduleId', 'in', scheduleIds)
    .execute();
  return new Map(rows.map((row) => [row.scheduleId, row.presetId]));
}

/** A preset as a run uses it: its config and the environment it picks, if any. */
export interface PresetForRun {
  id: string;
  name: string;
  config: RunConfig;
  environment?: string;
}

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
