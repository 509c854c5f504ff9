import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { removeTempDirs, tempDir, uiTest } from '../runner/fixtures.ts';
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
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
/** Both sides: one test may take 10 s (a `waitForFunction` that never holds waits that long). */
const testTimeoutMs = 10_000;

type Verdicts = Map<string, 'passed' | 'failed'>;
const key = (variant: Variant, title: string) => `${variant} | ${title}`;

interface JsonSuite {
  title: string;
  suites?: JsonSuite[];
  specs?: Array<{ title: string; tests: Array<{ projectName: string; status: string }> }>;
}

/** Raw Playwright: one project per variant, its JSON report read back as verdicts. */
async function runRawPlaywright(app: TodoApp, chromium: string, dir: string): Promise<Verdicts> {
  const report = path.join(dir, 'raw.json');
  const config = path.join(dir, 'playwright.config.mjs');
  await fs.writeFile(
    config,
    `export default ${JSON.stringify({
      testDir: path.join(here, 'todomvc'),
      testMatch: 'demo-todo-app.spec.ts',
      outputDir: path.join(dir, 'raw-results'),
      timeout: testTimeoutMs,
      retries: 0,
      workers: 2,
      reporter: [['json', { outputFile: report }]],
      use: { launchOptions: { executablePath: chromium } },
      projects: variants.map((variant) => ({ name: variant, use: { baseURL: app.url(variant) } })),
    })};\n`,
  );
  const cli = path.join(path.dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
  const stderr: string[] = [];
  const exit = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'test', '--config', config], {
      cwd: dir,
      env: { ...process.env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  // 1: some test failed (the mutants); anything else is Playwright itself failing.
  expect([0, 1], stderr.join('')).toContain(exit);
  const verdicts: Verdicts = new Map();
  const walk = (suite: JsonSuite, titles: string[]) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests)
        verdicts.set(
          key(test.projectName as Variant, [...titles, spec.title].join(' › ')),
          test.status === 'expected' ? 'passed' : 'failed',
        );
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const file of (JSON.parse(await fs.readFile(report, 'utf8')) as { suites: JsonSuite[] }).suites)
    walk(file, []);
  return verdicts;
}

/** Stepdeck: the steps suite once per variant (its base URL as the test's config), one run. */
async function runOnStepdeck(app: TodoApp, chromium: string, dir: string): Promise<Verdicts> {
  const suite = todoStepsSuite();
  const keys = new Map<string, string>();
  const tests = variants.flatMap((variant, v) =>
    suite.map((test, t) => {
      const id = `acce0000-0000-4000-8000-${String(v * 100 + t).padStart(12, '0')}`;
      keys.set(id, key(variant, test.title));
      // As raw Playwright runs it: no trace, no screenshot, no retry; one project per variant.
      const config = {
        timeout: testTimeoutMs,
        workers: 2,
        retries: 0,
        use: { baseURL: app.url(variant), trace: 'off', screenshot: 'off' },
      };
      return uiTest(id, `${variant}: ${test.title}`, test.steps, { config });
    }),
  );
  const project = compileProject({ tests, config: null, secretNames: [] });
  const result = await executeProject({
    dir,
    project,
    env: { CHROMIUM_PATH: chromium },
    signal: new AbortController().signal,
  });
  expect(result.runnerError ?? null, result.log).toBeNull();
  const verdicts: Verdicts = new Map();
  for (const test of result.tests)
    verdicts.set(keys.get(test.testId) as string, test.status === 'passed' ? 'passed' : 'failed');
  return verdicts;
}

describe('Playwright’s TodoMVC suite: raw Playwright and the same tests as steps give the same verdicts', () => {
  let app: TodoApp;
  let raw: Verdicts;
  let steps: Verdicts;
  beforeAll(async () => {
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    app = await startTodoApp();
    const chromium = resolved.browser.executablePath;
    raw = await runRawPlaywright(app, chromium, await tempDir('todomvc-raw'));
    steps = await runOnStepdeck(app, chromium, await tempDir('todomvc-steps'));
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
    const failing = (verdicts: Verdicts) =>
      [...verdicts].filter(([name, verdict]) => name.startsWith('correct |') && verdict !== 'passed');
    expect(failing(raw)).toEqual([]);
    expect(failing(steps)).toEqual([]);
  });

  it('gives every test the same verdict as raw Playwright on every broken version', () => {
    const differences = [...raw]
      .filter(([name, verdict]) => steps.get(name) !== verdict)
      .map(([name, verdict]) => `${name}: raw ${verdict}, steps ${steps.get(name)}`);
    expect(differences).toEqual([]);
  });

  it('catches each broken version (some test fails on it)', () => {
    for (const mutant of variants.filter((variant) => variant !== 'correct')) {
      const caught = [...raw].filter(
        ([name, verdict]) => name.startsWith(`${mutant} |`) && verdict === 'failed',
      );
      expect(caught.length, `${mutant}: ${MUTANTS[mutant as keyof typeof MUTANTS]}`).toBeGreaterThan(0);
    }
  });
});
