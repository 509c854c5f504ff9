import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RunConfig, StepNode } from '@stepdeck/contract';
import { expect } from 'vitest';
import { secretEnvVar } from '../../src/runner/compiler/constants.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { uiTest } from '../runner/fixtures.ts';

/**
 * The two sides of an acceptance suite: a Playwright spec run by raw `playwright test`, and the
 * same tests as steps run by Stepdeck's compiler and executor, both with the same Chromium, once
 * per version of the app (the correct one and each mutant). Each side answers a verdict per
 * `<variant> | <describe › title>`.
 */
export type Verdicts = Map<string, 'passed' | 'failed'>;
export const verdictKey = (variant: string, title: string) => `${variant} | ${title}`;

const require = createRequire(import.meta.url);

interface JsonSuite {
  title: string;
  suites?: JsonSuite[];
  specs?: Array<{ title: string; tests: Array<{ projectName: string; status: string }> }>;
}

export async function runRawPlaywright(options: {
  testDir: string;
  testMatch: string;
  variants: string[];
  baseURL: (variant: string) => string;
  chromium: string;
  dir: string;
  timeoutMs: number;
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
      for (const test of spec.tests)
        verdicts.set(
          verdictKey(test.projectName, [...titles, spec.title].join(' › ')),
          test.status === 'expected' ? 'passed' : 'failed',
        );
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
}): Promise<Verdicts> {
  const keys = new Map<string, string>();
  const tests = options.variants.flatMap((variant, v) =>
    options.suite.map((test, t) => {
      const id = `acce0000-0000-4000-8000-${String(v * 100 + t).padStart(12, '0')}`;
      keys.set(id, verdictKey(variant, test.title));
      // As raw Playwright runs it: no trace, no screenshot, no retry; one project per variant.
      const config = {
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
  for (const test of result.tests)
    verdicts.set(keys.get(test.testId) as string, test.status === 'passed' ? 'passed' : 'failed');
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
