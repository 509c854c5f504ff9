/**
 * What other modules may use of the environments module: runs resolve the environment a run
 * names and read its variables and secrets when it executes; schedules and presets check the
 * name they store (test/architecture.test.ts checks that nothing else is imported from outside).
 */

export { environmentForExecution, environmentOfProject, type PickedEnvironment } from './picking.ts';
export { sealedEnvironmentSecrets } from './repository.ts';
