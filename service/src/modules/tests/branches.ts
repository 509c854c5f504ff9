import { randomUUID } from 'node:crypto';
import type { Tx } from '../../adapters/db/index.ts';
import { copyRevisionSteps } from '../step-trees/public.ts';
import { insertRevisionRows, workingRevisionRowsOfBranch } from './repository.ts';

/**
 * Console branch creation: the new branch starts with a copy of the source branch's working
 * revisions; the step nodes point at the same canonical steps (shared by reference).
 */
export async function copyBranchTests(
  trx: Tx,
  branch: { projectId: string; fromBranchId: string; toBranchId: string; now: string },
): Promise<void> {
  const rows = await workingRevisionRowsOfBranch(trx, branch.projectId, branch.fromBranchId);
  const pairs = rows.map((row) => ({ from: row.id, to: randomUUID() }));
  const copies = rows.map((row, index) => ({
    ...row,
    id: pairs[index]?.to as string,
    branchId: branch.toBranchId,
    createdAt: branch.now,
  }));
  await insertRevisionRows(trx, copies);
  await copyRevisionSteps(trx, pairs);
}
