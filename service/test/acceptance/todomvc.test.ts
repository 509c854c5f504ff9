import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { removeTempDirs, tempDir } from '../runner/fixtures.ts';
import {
  catching,
  differences,
  failingOnCorrect,
  runOnStepdeck,
  runRawPlaywright,
  type Verdicts,
} from './fidelity.ts';
import { todoStepsSuite } from './todomvc/demo-todo-app.steps.ts';
import { MUTANTS, startTodoApp, type TodoApp, type Variant } from './todomvc-app.ts';

/**
 * Stepdeck against what others wrote: Playwright's own TodoMVC example suite (24 tests, as
 * `npm init playwright` writes it) runs with raw `playwright test`, and the same suite written as
 * steps runs on Stepdeck's compiler and executor, both with the same Chromium, against the
 * correct app and each deliberately broken version of it. Every test must get the same verdict
 * from both; on the correct app every test passes, and each mutant is caught by both.
 */
// All of them; `TODOMVC_VARIANTS=correct,untrimmed` narrows a run while working on the suite.
const variants: Variant[] = process.env.TODOMVC_VARIANTS
  ? (process.env.TODOMVC_VARIANTS.split(',') as Variant[])
  : ['correct', ...(Object.keys(MUTANTS) as Variant[])];
const here = path.dirname(fileURLToPath(import.meta.url));
/** Both sides: one test may take 10 s (a `waitForFunction` that never holds waits that long). */
const testTimeoutMs = 10_000;

describe('Playwright’s TodoMVC suite: raw Playwright and the same tests as steps give the same verdicts', () => {
  let app: TodoApp;
  let raw: Verdicts;
  let steps: Verdicts;
  beforeAll(async () => {
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    app = await startTodoApp();
    const chromium = resolved.browser.executablePath;
    const sides = {
      variants,
      baseURL: (variant: string) => app.url(variant as Variant),
      chromium,
      timeoutMs: testTimeoutMs,
    };
    raw = await runRawPlaywright({
      ...sides,
      testDir: path.join(here, 'todomvc'),
      testMatch: 'demo-todo-app.spec.ts',
      dir: await tempDir('todomvc-raw'),
    });
    steps = await runOnStepdeck({ ...sides, suite: todoStepsSuite(), dir: await tempDir('todomvc-steps') });
  }, 1_500_000);
  afterAll(async () => {
    await app?.close();
    await removeTempDirs();
  });

  it('runs all 24 tests on each version of the app, on both sides', () => {
    expect(raw.size).toBe(24 * variants.length);
    expect([...steps.keys()].sort()).toEqual([...raw.keys()].sort());
  });

  it('passes every test on the correct app, on both sides', () => {
    expect(failingOnCorrect(raw)).toEqual([]);
    expect(failingOnCorrect(steps)).toEqual([]);
  });

  it('gives every test the same verdict as raw Playwright on every broken version', () => {
    expect(differences(raw, steps)).toEqual([]);
  });

  it('catches each broken version (some test fails on it)', () => {
    for (const mutant of variants.filter((variant) => variant !== 'correct')) {
      expect(
        catching(raw, mutant).length,
        `${mutant}: ${MUTANTS[mutant as keyof typeof MUTANTS]}`,
      ).toBeGreaterThan(0);
    }
  });
});
