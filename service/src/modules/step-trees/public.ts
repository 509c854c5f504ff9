/**
 * The step-tree store: canonical steps, shared-group links and the nodes of revision trees
 * (tables `steps`, `stepChildren`, `revisionSteps`), in the stored and shown forms
 * (`step-rows.ts`), client input (`step-input.ts`), writing (`step-writer.ts`), reading
 * (`step-trees.ts`) and the quotas on a test's tree (`step-limits.ts`). The tests module keeps
 * its revisions' trees here and the steps module edits steps here; the store uses neither, so
 * both depend on it and not on each other's internals (test/architecture.test.ts checks that
 * nothing else of step-trees/ is imported from outside).
 */
export {
  childActions,
  deleteIfOrphan,
  deleteLinks,
  deleteStep,
  existingSharedIds,
  findVisibleStep,
  groupChildren,
  insertLinks,
  insertStepCopy,
  isShared,
  linksOf,
  parentsOf,
  setLink,
  sharedStepsPage,
  updateOwnStep,
  updateStep,
} from './repository.ts';
export {
  childNodes,
  countNodes,
  deleteNodes,
  deleteRevisionTree,
  findNode,
  nodeExists,
  repointNodes,
  revisionsUsing,
  setNodePosition,
  type WorkingRevision,
} from './revision-nodes-repository.ts';
export { type NormalizedStep, normalizeSteps, parseSteps, referencedIds } from './step-input.ts';
export {
  defaultStepLimits,
  overLimits,
  refuseOverLimits,
  requireStepsWithinLimits,
  revisionSizes,
  type StepLimits,
  sizeOfSteps,
  stepBytes,
  stepLimitsOf,
  type TreeSize,
} from './step-limits.ts';
export { chunk, type StepRow, type StepView, stripScreenshotData } from './step-rows.ts';
export { loadStepTree, loadStepTrees, toStepNodes, viewsToInput, yieldToLoop } from './step-trees.ts';
export { parentGroupsOf, requireStep, revisionsReferencing } from './step-trees-repository.ts';
export { copyRevisionSteps, StepWriter } from './step-writer.ts';
