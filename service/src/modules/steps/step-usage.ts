import type { Db, Tx } from '../../adapters/db/index.ts';
import { branchNames } from '../accounts/public.ts';
import {
  chunk,
  countNodes,
  findNode,
  overLimits,
  parentGroupsOf,
  refuseOverLimits,
  revisionSizes,
  revisionsReferencing,
  revisionsUsing,
  type StepLimits,
} from '../step-trees/public.ts';
import { markEditedWithStepsCount, workingRevisionsOf } from '../tests/public.ts';

/**
 * Which tests' working revisions use a step: the step-tree store knows the nodes, the tests
 * module which revisions are working and on which branch. Editing a step asks both here.
 */

type Executor = Db | Tx;
type Scope = { projectId: string; branchId: string };

/** Working revisions of the project (with their branch's name) whose trees reference a canonical step directly: one entry per node. */
export async function usages(db: Executor, projectId: string, stepId: string) {
  const nodes = await revisionsUsing(db, stepId);
  const revisions = await workingRevisionsOf(db, projectId, nodes);
  const branches = await branchNames(
    db,
    [...revisions.values()].map((revision) => revision.branchId),
  );
  return nodes.flatMap((revisionId) => {
    const revision = revisions.get(revisionId);
    const branchName = revision && branches.get(revision.branchId);
    return revision && branchName !== undefined
      ? [
          {
            revisionId: revision.id,
            testId: revision.testId,
            name: revision.name,
            branchId: revision.branchId,
            branchName,
          },
        ]
      : [];
  });
}

/** A node of a working revision on the branch, with its test and canonical step. */
export async function findWorkingNode(db: Executor, scope: Scope, revisionStepId: string) {
  const node = await findNode(db, revisionStepId);
  if (!node) return undefined;
  const revision = (await workingRevisionsOf(db, scope.projectId, [node.revisionId])).get(node.revisionId);
  if (!revision || revision.branchId !== scope.branchId) return undefined;
  return { ...node, testId: revision.testId, testName: revision.name, type: revision.type };
}

/** Marks a working revision whose tree changed size as edited, with its step count recounted. */
export async function markEditedAndRecount(db: Executor, revisionId: string, now: string) {
  await markEditedWithStepsCount(db, revisionId, now, await countNodes(db, revisionId));
}

/**
 * The working revisions whose trees show any of these steps: directly, or inside shared groups
 * (any level) that link them; with their test names for the refusal.
 */
async function workingRevisionsShowing(db: Executor, projectId: string, stepIds: string[]) {
  const all = new Set(stepIds);
  let frontier = [...all];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const part of chunk(frontier, 500))
      for (const link of await parentGroupsOf(db, part))
        if (!all.has(link.parentStepId)) {
          all.add(link.parentStepId);
          next.push(link.parentStepId);
        }
    frontier = next;
  }
  const revisionIds: string[] = [];
  for (const part of chunk([...all], 500)) revisionIds.push(...(await revisionsReferencing(db, part)));
  return workingRevisionsOf(db, projectId, revisionIds);
}

/**
 * For an edit of canonical steps that every test showing them sees (a step's fields, a shared
 * group's children): measures those tests now, and returns the check to run once the edit is
 * written in the same transaction, which refuses it (rolled back) when it grows a test past a limit.
 */
export async function guardTestsShowing(
  db: Executor,
  limits: StepLimits,
  projectId: string,
  stepIds: string[],
): Promise<() => Promise<void>> {
  const revisions = await workingRevisionsShowing(db, projectId, stepIds);
  const ids = [...revisions.keys()];
  const before = await revisionSizes(db, ids);
  return async () => {
    const after = await revisionSizes(db, ids);
    for (const [id, revision] of revisions) {
      const size = after.get(id) ?? { steps: 0, bytes: 0 };
      if (overLimits(limits, size))
        refuseOverLimits(limits, size, { before: before.get(id), who: `test "${revision.name}"` });
    }
  };
}
