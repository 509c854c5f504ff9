/**
 * What other modules may use of the steps module: the step-tree store (canonical steps,
 * shared-group links and the nodes of revision trees), which the tests module reads and
 * writes its revisions' trees through, and the quotas on a test's tree (step-limits.ts)
 * (test/architecture.test.ts checks that nothing else of steps/ is imported from outside).
 */
export { deleteRevisionTree } from './revision-nodes-repository.ts';
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
export {
  copyRevisionSteps,
  loadStepTree,
  loadStepTrees,
  type NormalizedStep,
  normalizeSteps,
  parseSteps,
  type StepView,
  StepWriter,
  toStepNodes,
  yieldToLoop,
} from './steps-store.ts';
