/** The revision history of a test: its saved (manual) revisions. */
import type { Db, Tx } from '../../adapters/db/index.ts';

type Executor = Db | Tx;

/** A revision of the test on this branch of the project (any kind). */
export async function findRevisionOfTest(
  db: Executor,
  where: { projectId: string; branchId: string; testId: string; revisionId: string },
) {
  return db
    .selectFrom('testRevisions')
    .select(['id', 'message', 'createdAt', 'name', 'kind'])
    .where('id', '=', where.revisionId)
    .where('testId', '=', where.testId)
    .where('branchId', '=', where.branchId)
    .where('projectId', '=', where.projectId)
    .executeTakeFirst();
}

/** The test's manual revisions on the branch, newest first. */
export async function manualRevisions(db: Executor, branchId: string, testId: string) {
  return db
    .selectFrom('testRevisions')
    .select(['id', 'message', 'createdAt'])
    .where('testId', '=', testId)
    .where('branchId', '=', branchId)
    .where('kind', '=', 'manual')
    .orderBy('createdAt', 'desc')
    .orderBy('editVersion', 'desc')
    .execute();
}
