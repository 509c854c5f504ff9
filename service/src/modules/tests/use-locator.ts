import { type StepAction, stepAction } from '@stepdeck/contract';
import { transaction } from '../../adapters/db/locks.ts';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import {
  deleteRevisionTree,
  loadStepTree,
  type NormalizedStep,
  requireStepsWithinLimits,
  type StepView,
  StepWriter,
  stepLimitsOf,
} from '../step-trees/public.ts';
import { type Scope, viewsToNormalized } from './present.ts';
import { requireWorking } from './repository.ts';
import { updateRevisionAtVersion } from './writes-repository.ts';

/**
 * "Use this locator": one step of a test's working revision gets another selector, written as
 * the editor's save writes a step tree (the revision's edit version goes up, it is unsaved).
 * The step is found by its node id in the tree the run used; if the working revision no longer
 * holds that node with the selector the run failed on, the change is refused (409): the user
 * edited the test since, and the suggestion may no longer fit it.
 */

export interface ReplaceSelector {
  testId: string;
  /** The node id of the step in the test's tree (a run report's `stepId`). */
  stepId: string;
  /** The selector the step held in the run. */
  from: string;
  to: string;
}

/** The selector fields of an action, in the order a failure names them. */
const SELECTOR_FIELDS = ['selector', 'target'] as const;

function findPath(views: StepView[], nodeId: string, path: number[] = []): number[] | null {
  for (const [index, view] of views.entries()) {
    if (view.id === nodeId) return [...path, index];
    // A shared step's children belong to the shared step, not to this test.
    if (view.shared) continue;
    const inner = findPath(view.children, nodeId, [...path, index]);
    if (inner) return inner;
  }
  return null;
}

function sharedOwner(views: StepView[], nodeId: string): StepView | null {
  for (const view of views) {
    if (view.shared && findPath(view.children, nodeId)) return view;
    const inner = sharedOwner(view.children, nodeId);
    if (inner) return inner;
  }
  return null;
}

export async function replaceStepSelector(
  ctx: AppContext,
  scope: Scope,
  input: ReplaceSelector,
): Promise<{ revisionId: string; editVersion: number; selector: string }> {
  const now = isoNow(ctx.clock);
  return transaction(ctx.db, async (trx) => {
    const current = await requireWorking(trx, scope.projectId, scope.branchId, input.testId, 'update');
    const views = await loadStepTree(trx, current.revisionId);
    const path = findPath(views, input.stepId);
    if (!path) {
      const owner = sharedOwner(views, input.stepId);
      throw appError(
        'TEST_CHANGED_SINCE_RUN',
        owner
          ? `the step is inside the shared step "${owner.name}": change it there`
          : 'the step is no longer in it',
      );
    }
    const steps: NormalizedStep[] = viewsToNormalized(views);
    let node: NormalizedStep | undefined;
    let level = steps;
    for (const index of path) {
      node = level[index];
      level = node?.children ?? [];
    }
    if (!node) throw appError('TEST_CHANGED_SINCE_RUN', 'the step is no longer in it');
    if (node.sharedRef)
      throw appError('TEST_CHANGED_SINCE_RUN', `"${node.name}" is a shared step: change it there`);
    const action = node.action as Record<string, unknown>;
    const field = SELECTOR_FIELDS.find((name) => action[name] === input.from);
    if (!field) throw appError('TEST_CHANGED_SINCE_RUN', `step "${node.name}" no longer holds ${input.from}`);
    const parsed = stepAction.safeParse({ ...action, [field]: input.to });
    if (!parsed.success) throw appError('LOCATOR_NOT_SUGGESTED', input.to);
    node.action = parsed.data as StepAction;
    await requireStepsWithinLimits(trx, stepLimitsOf(ctx.config), steps, current.revisionId);
    await deleteRevisionTree(trx, current.revisionId);
    const writer = new StepWriter(scope.projectId, current.type, now);
    const stepsCount = writer.tree(current.revisionId, steps);
    await writer.flush(trx);
    const editVersion = current.editVersion + 1;
    const updated = await updateRevisionAtVersion(trx, current.revisionId, current.editVersion, {
      stepsCount,
      editVersion,
      dirty: 1,
      updatedAt: now,
    });
    if (!updated) throw appError('EDIT_CONFLICT');
    return { revisionId: current.revisionId, editVersion, selector: input.to };
  });
}
