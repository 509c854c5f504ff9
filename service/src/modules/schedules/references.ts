import type { Db } from '../../adapters/db/index.ts';
import { readJson } from '../../adapters/db/index.ts';
import { tagIdsOfTests, withAncestors } from '../tests/public.ts';
import { enabledSchedulesOfProject, storedTestIds } from './repository.ts';

/**
 * Active (enabled) schedules that target any of these tests: directly, through a directory
 * above them, or through a tag they carry. The tests module refuses to delete a referenced
 * test; callers deleting a directory pass it and all its descendants.
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
