import type { Db, Tx } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';

/**
 * The preset a schedule names, kept by the presets module: schedules call these to check and
 * record the link (the preset a firing runs with is read in run-preset-repository.ts).
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
