/**
 * What other modules may use of the tests module: tests, their revisions, tag links,
 * attachments and project secrets live in its tables, and other modules read or change them
 * only through these functions (test/architecture.test.ts checks that nothing else is imported).
 */
export { storeAttachments, type UploadedFile } from './attachments.ts';
export { expandRunTargets, loadCompilableTests } from './executable.ts';
export { readForm } from './multipart.ts';
export { parseJsonField, type Scope } from './present.ts';
export {
  findWorkingMany,
  lockRevisions,
  requireWorking,
  tagIdsOfTests,
  testIdsInProject,
  withAncestors,
} from './repository.ts';
export {
  deleteStepAttachments,
  isWorkingRevision,
  markEdited,
  markEditedWithStepsCount,
  workingRevisionsOf,
} from './revision-trees-repository.ts';
export { scopeOf } from './scope.ts';
export { loadProjectSecrets, sealedProjectSecrets } from './secrets-repository.ts';
export { replaceStepSelector } from './use-locator.ts';
export type { TestDeleteGuard } from './writes.ts';
