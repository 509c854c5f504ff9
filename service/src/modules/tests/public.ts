/**
 * What other modules may use of the tests module: tests, their revisions, tags links,
 * attachments and project secrets live in its tables, and other modules read or change them
 * only through these functions (test/architecture.test.ts checks that nothing else is imported).
 */
export { expandRunTargets, loadCompilableTests, loadProjectSecrets } from './executable.ts';
export {
  findWorkingMany,
  tagIdsOfTests,
  testIdsInProject,
  withAncestors,
} from './repository.ts';
