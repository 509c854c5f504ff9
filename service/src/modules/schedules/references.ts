import type { Db } from '../../adapters/db/index.ts';
import { readJson } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { type PresetDeleteGuard, scheduleIdsOfPreset } from '../presets/public.ts';
import { type TestDeleteGuard, tagIdsOfTests, withAncestors } from '../tests/public.ts';
import { enabledSchedulesOfProject, scheduleNames, storedTestIds } from './repository.ts';

/**
 * Active (enabled) schedules that target any of these tests: directly, through a directory
 * above them, or through a tag they carry. Deleting a directory passes it and all its descendants.
 */
export async function activeSchedulesReferencing(
  db: Db,
  projectId: string,
  testIds: readonly string[],
): Promise<Array<{ id: string; name: string }>> {
  if (testIds.length === 0) return [];
  const schedules = await enabledSchedulesOfProject(db, projectId);
  if (schedules.length === 0) return [];

  // The tests themselves and every directory above them, and the tags they carry.
  const covered = await withAncestors(db, projectId, testIds);
  const tags = await tagIdsOfTests(db, testIds);

  return schedules
    .filter(
      (schedule) =>
        (schedule.tagId !== null && tags.has(schedule.tagId)) ||
        (readJson(storedTestIds, schedule.testIds, [], `schedules ${schedule.id}/testIds`) ?? []).some((id) =>
          covered.has(id),
        ),
    )
    .map((schedule) => ({ id: schedule.id, name: schedule.name }));
}

/** Deleting tests an active schedule targets is refused, naming those schedules. */
export const refuseDeletingScheduledTests: TestDeleteGuard = async (trx, projectId, testIds) => {
  const schedules = await activeSchedulesReferencing(trx, projectId, testIds);
  if (schedules.length > 0)
    throw appError('TEST_IN_ACTIVE_SCHEDULES', schedules.map((schedule) => schedule.name).join(', ')).with({
      body: { schedules },
    });
};

/** Deleting a preset a schedule names (enabled or not) is refused, naming those schedules. */
export const refuseDeletingNamedPreset: PresetDeleteGuard = async (trx, _projectId, presetId) => {
  const schedules = await scheduleNames(trx, await scheduleIdsOfPreset(trx, presetId));
  if (schedules.length > 0) {
    const names = schedules.map((schedule) => `"${schedule.name}"`).join(', ');
    throw appError('PRESET_IN_USE', schedules.length, names).with({
      body: { schedules: schedules.map((schedule) => ({ id: schedule.id, name: schedule.name })) },
    });
  }
};
