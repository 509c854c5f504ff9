import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeFidelity } from './fidelity.ts';
import { todoStepsSuite } from './todomvc/demo-todo-app.steps.ts';
import { MUTANTS, startTodoApp, type Variant } from './todomvc-app.ts';

/**
 * Stepdeck against what others wrote: Playwright's own TodoMVC example suite (24 tests, as
 * `npm init playwright` writes it) runs with raw `playwright test`, and the same suite written as
 * steps runs on Stepdeck's compiler and executor, both with the same Chromium, against the
 * correct app and each deliberately broken version of it. Every test must get the same verdict
 * from both; on the correct app every test passes, and each mutant is caught by both.
 * `TODOMVC_VARIANTS=correct,untrimmed` narrows a run while working on the suite.
 */
describeFidelity<Variant>({
  title: 'Playwright’s TodoMVC suite: raw Playwright and the same tests as steps give the same verdicts',
  name: 'todomvc',
  mutants: MUTANTS,
  variantsEnv: 'TODOMVC_VARIANTS',
  startApp: startTodoApp,
  spec: {
    dir: path.join(path.dirname(fileURLToPath(import.meta.url)), 'todomvc'),
    file: 'demo-todo-app.spec.ts',
  },
  steps: todoStepsSuite(),
  minimumTests: 24,
  // Both sides: one test may take 10 s (a `waitForFunction` that never holds waits that long).
  testTimeoutMs: 10_000,
});
