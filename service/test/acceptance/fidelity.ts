import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RunConfig, StepNode } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { secretEnvVar } from '../../src/runner/compiler/constants.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { removeTempDirs, tempDir, uiTest } from '../runner/fixtures.ts';

/**
 * The two sides of an acceptance suite: a Playwright spec run by raw `playwright test`, and the
 * same tests as steps run by Stepdeck's compiler and executor, both with the same Chromium, once
 * per version of the app (the correct one and each mutant). Each side answers a verdict per
 * `<variant> | <describe › title>`.
 */
export type Verdicts = Map<string, 'passed' | 'failed'>;
/** Each test's own time (Playwright's `duration` of its last attempt), by the same keys. */
export type Durations = Map<string, number>;
export const verdictKey = (variant: string, title: string) => `${variant} | ${title}`;

const require = createRequire(import.meta.url);

interface JsonSuite {
  title: string;
  suites?: JsonSuite[];
  specs?: Array<{
    title: string;
    tests: Array<{ projectName: string; status: string; results?: Array<{ duration: number }> }>;
  }>;
}

export async function runRawPlaywright(options: {
  testDir: string;
  testMatch: string;
  variants: string[];
  baseURL: (variant: string) => string;
  chromium: string;
  dir: string;
  timeoutMs: number;
  durations?: Durations;
}): Promise<Verdicts> {
  const { dir } = options;
  const report = path.join(dir, 'raw.json');
  const config = path.join(dir, 'playwright.config.mjs');
  await fs.writeFile(
    config,
    `export default ${JSON.stringify({
      testDir: options.testDir,
      testMatch: options.testMatch,
      outputDir: path.join(dir, 'raw-results'),
      timeout: options.timeoutMs,
      retries: 0,
      workers: 2,
      reporter: [['json', { outputFile: report }]],
      use: { launchOptions: { executablePath: options.chromium } },
      projects: options.variants.map((variant) => ({
        name: variant,
        use: { baseURL: options.baseURL(variant) },
      })),
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
      for (const test of spec.tests) {
        const key = verdictKey(test.projectName, [...titles, spec.title].join(' › '));
        verdicts.set(key, test.status === 'expected' ? 'passed' : 'failed');
        const last = test.results?.at(-1);
        if (last) options.durations?.set(key, last.duration);
      }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const file of (JSON.parse(await fs.readFile(report, 'utf8')) as { suites: JsonSuite[] }).suites)
    walk(file, []);
  return verdicts;
}

export interface StepsTest {
  title: string;
  steps: StepNode[];
  /** The test's own run config, over the suite's (e.g. a device or a locale). */
  config?: Partial<RunConfig>;
}

/** The steps suite once per variant (its base URL in the test's config), all in one run. */
export async function runOnStepdeck(options: {
  suite: StepsTest[];
  variants: string[];
  baseURL: (variant: string) => string;
  chromium: string;
  dir: string;
  timeoutMs: number;
  secrets?: Record<string, string>;
  durations?: Durations;
}): Promise<Verdicts> {
  const keys = new Map<string, string>();
  const tests = options.variants.flatMap((variant, v) =>
    options.suite.map((test, t) => {
      const id = `acce0000-0000-4000-8000-${String(v * 100 + t).padStart(12, '0')}`;
      keys.set(id, verdictKey(variant, test.title));
      // As raw Playwright runs it: no trace, no screenshot, no retry, Playwright's default
      // viewport (Stepdeck's is 1920×1080) unless the test names a device; one project per variant.
      const config = {
        ...(test.config?.device || test.config?.viewport ? {} : { viewport: { width: 1280, height: 720 } }),
        ...test.config,
        timeout: options.timeoutMs,
        workers: 2,
        retries: 0,
        use: { ...test.config?.use, baseURL: options.baseURL(variant), trace: 'off', screenshot: 'off' },
      } as RunConfig;
      return uiTest(id, `${variant}: ${test.title}`, test.steps, { config });
    }),
  );
  const secrets = Object.entries(options.secrets ?? {});
  const project = compileProject({ tests, config: null, secretNames: secrets.map(([name]) => name) });
  const result = await executeProject({
    dir: options.dir,
    project,
    env: {
      CHROMIUM_PATH: options.chromium,
      ...Object.fromEntries(secrets.map(([name, value]) => [secretEnvVar(name), value])),
    },
    signal: new AbortController().signal,
  });
  expect(result.runnerError ?? null, result.log).toBeNull();
  const verdicts: Verdicts = new Map();
  for (const test of result.tests) {
    const key = keys.get(test.testId) as string;
    verdicts.set(key, test.status === 'passed' ? 'passed' : 'failed');
    options.durations?.set(key, test.durationMs);
  }
  return verdicts;
}

/** The verdicts that differ between the two sides, as readable lines. */
export function differences(raw: Verdicts, steps: Verdicts): string[] {
  return [...raw]
    .filter(([name, verdict]) => steps.get(name) !== verdict)
    .map(([name, verdict]) => `${name}: raw ${verdict}, steps ${steps.get(name)}`);
}

/** The tests failing on the correct version, on one side. */
export function failingOnCorrect(verdicts: Verdicts): string[] {
  return [...verdicts]
    .filter(([name, verdict]) => name.startsWith('correct |') && verdict !== 'passed')
    .map(([name]) => name);
}

/** The tests that catch a mutant (fail on it), on one side. */
export function catching(verdicts: Verdicts, mutant: string): string[] {
  return [...verdicts]
    .filter(([name, verdict]) => name.startsWith(`${mutant} |`) && verdict === 'failed')
    .map(([name]) => name);
}

/** An acceptance suite: an app with broken versions, its Playwright spec and the same tests as steps. */
export interface FidelitySuite<Variant extends string> {
  /** The describe block's title. */
  title: string;
  /** Folder names for the temp dirs (`<name>-raw`, `<name>-steps`). */
  name: string;
  /** Every broken version of the app, with what it breaks. */
  mutants: Record<Exclude<Variant, 'correct'>, string>;
  /** The environment variable that narrows a run to some versions (`NAME_VARIANTS=correct,x`). */
  variantsEnv: string;
  startApp(): Promise<{ url(variant: Variant): string; close(): Promise<void> }>;
  /** The raw Playwright spec: its folder and file name. */
  spec: { dir: string; file: string };
  steps: StepsTest[];
  /** How many tests the suite has at least (both sides must run all of them). */
  minimumTests: number;
  /** Each test's timeout on both sides. */
  testTimeoutMs: number;
  secrets?: Record<string, string>;
}

/**
 * Runs the suite both ways against every version of the app and asserts what an acceptance
 * suite promises: all tests ran on both sides, the correct app passes everywhere, every verdict
 * is the same as raw Playwright's, and each broken version is caught. The two sides' wall times
 * are printed (the per-test cost of steps against raw Playwright).
 */
export function describeFidelity<Variant extends string>(suite: FidelitySuite<Variant>): void {
  const narrowed = process.env[suite.variantsEnv];
  const variants: string[] = narrowed ? narrowed.split(',') : ['correct', ...Object.keys(suite.mutants)];

  describe(suite.title, () => {
    let app: Awaited<ReturnType<FidelitySuite<Variant>['startApp']>>;
    let raw: Verdicts;
    let steps: Verdicts;
    const rawDurations: Durations = new Map();
    const stepsDurations: Durations = new Map();
    beforeAll(async () => {
      const resolved = await resolveChromium();
      if (!resolved.ok) throw new Error(resolved.problem);
      app = await suite.startApp();
      const sides = {
        variants,
        baseURL: (variant: string) => app.url(variant as Variant),
        chromium: resolved.browser.executablePath,
        timeoutMs: suite.testTimeoutMs,
      };
      const rawStarted = Date.now();
      raw = await runRawPlaywright({
        ...sides,
        durations: rawDurations,
        testDir: suite.spec.dir,
        testMatch: suite.spec.file,
        dir: await tempDir(`${suite.name}-raw`),
      });
      const stepsStarted = Date.now();
      steps = await runOnStepdeck({
        ...sides,
        durations: stepsDurations,
        suite: suite.steps,
        ...(suite.secrets ? { secrets: suite.secrets } : {}),
        dir: await tempDir(`${suite.name}-steps`),
      });
      const rawMs = stepsStarted - rawStarted;
      const stepsMs = Date.now() - stepsStarted;
      process.stdout.write(
        `${suite.name}: raw playwright test ${(rawMs / 1000).toFixed(1)} s, steps ${(stepsMs / 1000).toFixed(1)} s ` +
          `(${(stepsMs / rawMs).toFixed(2)}x) for ${suite.steps.length} tests x ${variants.length} versions\n` +
          perTestCost(rawDurations, stepsDurations),
      );
    }, 1_500_000);
    afterAll(async () => {
      await app?.close();
      await removeTempDirs();
    });

    it(`runs all ${suite.steps.length} tests on each version of the app, on both sides`, () => {
      expect(suite.steps.length).toBeGreaterThanOrEqual(suite.minimumTests);
      expect(raw.size).toBe(suite.steps.length * variants.length);
      expect([...steps.keys()].sort()).toEqual([...raw.keys()].sort());
    });

    it('passes every test on the correct app, on both sides', () => {
      expect(failingOnCorrect(raw)).toEqual([]);
      expect(failingOnCorrect(steps)).toEqual([]);
    });

    it('gives every test the same verdict as raw Playwright on every broken version', () => {
      expect(differences(raw, steps)).toEqual([]);
    });

    it('catches each broken version on both sides (some test fails on it)', () => {
      for (const mutant of variants.filter((variant) => variant !== 'correct')) {
        const why = `${mutant}: ${suite.mutants[mutant as Exclude<Variant, 'correct'>]}`;
        expect(catching(raw, mutant).length, why).toBeGreaterThan(0);
        expect(catching(steps, mutant).length, why).toBeGreaterThan(0);
      }
    });
  });
}

/**
 * The tests' own time on the correct app, summed on each side (start-up and scheduling left
 * out: the per-test cost of steps against raw Playwright), and the three tests that cost most.
 */
function perTestCost(raw: Durations, steps: Durations): string {
  const correct = [...raw.keys()].filter((key) => key.startsWith('correct |') && steps.has(key));
  if (correct.length === 0) return '';
  const sum = (durations: Durations) => correct.reduce((total, key) => total + (durations.get(key) ?? 0), 0);
  const rawSum = sum(raw);
  const stepsSum = sum(steps);
  const worst = correct
    .map((key) => ({ key, ratio: (steps.get(key) ?? 0) / Math.max(1, raw.get(key) ?? 0) }))
    .sort((a, b) => b.ratio - a.ratio)
    .slice(0, 3)
    .map(({ key, ratio }) => `${key.slice('correct | '.length)} ${ratio.toFixed(2)}x`);
  return (
    `  per-test time on the correct app: raw ${(rawSum / 1000).toFixed(1)} s, steps ${(stepsSum / 1000).toFixed(1)} s ` +
    `(${(stepsSum / rawSum).toFixed(2)}x); most: ${worst.join('; ')}\n`
  );
}
