import type { Db } from '../../adapters/db/index.ts';

/**
 * Active schedules that target any of these tests (directly, or through a directory or tag).
 * The tests module refuses to delete a referenced test; the schedules issue fills this in.
 */
export async function activeSchedulesReferencing(
  _db: Db,
  _projectId: string,
  _testIds: readonly string[],
): Promise<Array<{ id: string; name: string }>> {
  return [];
}
