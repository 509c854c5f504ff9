/**
 * What 10 `assertScreenshot` steps add to a test: the same browser test (open a page, check
 * ten texts) with and without a screenshot after each check, both in one run, against
 * baselines of an unchanged page (recorded by a first run, then handed back as the service
 * does). Prints each round's test times (Playwright's own, per test) and the median ratio
 * with ÷ without. Target (issue's benchmark): overhead ≤ 10 % of the test's time.
 *
 *   node bench/visual-overhead.ts [--rounds 5] [--width 1920 --height 1080]
 *
 * A warm-up test runs first in every run, so neither measured test pays the browser's start;
 * the two measured tests swap places each round. Each round also runs the floor: the same two
 * tests written as Playwright's docs teach (`await expect(page).toHaveScreenshot()` after each
 * check), by raw `playwright test` in the same browser and viewport against baselines it
 * recorded itself: what 10 screenshots cost any Playwright test on this machine. Timings on a
 * shared machine are noisy: the load average is printed.
 */

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { resolveChromium } from '../src/runner/browser.ts';
import { CHROMIUM_ARGS, visualBaselineFile } from '../src/runner/compiler/constants.ts';
import {
  type CompilableTest,
  compileProject,
  type ExecutionResult,
  executeProject,
  linkPlaywright,
} from '../src/runner/index.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    width: { type: 'string', default: '1920' },
    height: { type: 'string', default: '1080' },
  },
});
const rounds = Number(values.rounds);
const viewport = { width: Number(values.width), height: Number(values.height) };
const checks = 10;

// A page with some text, blocks and a form: something like what a test looks at.
const page = `<!doctype html><html><head><title>Orders</title><style>
  body { margin: 0; font: 16px/1.4 sans-serif; color: #222; }
  header { background: #1a4fa0; color: #fff; padding: 16px 24px; }
  main { display: grid; grid-template-columns: repeat(2, 1fr); gap: 16px; padding: 24px; }
  section { border: 1px solid #ccd; border-radius: 6px; padding: 12px 16px; }
  .bar { height: 12px; background: linear-gradient(90deg, #36c, #3c6); border-radius: 6px; }
</style></head><body>
  <header><h1>Orders</h1></header>
  <main>${Array.from(
    { length: checks },
    (_, index) =>
      `<section><h2 id="s${index}">Section ${index}</h2><p>Order ${1000 + index} shipped to customer ${index}, three items, paid by card.</p><div class="bar" style="width:${30 + index * 6}%"></div><label>Note <input value="note ${index}"></label></section>`,
  ).join('')}</main>
</body></html>`;
const server = http.createServer((_request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end(page);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const testIds = {
  warmUp: 'bebebebe-0000-4000-8000-000000000001',
  plain: 'bebebebe-0000-4000-8000-000000000002',
  visual: 'bebebebe-0000-4000-8000-000000000003',
};
const shotStepId = (index: number) => `shot-${index}`;

function browserTest(id: string, name: string, screenshots: boolean): CompilableTest {
  const steps: CompilableTest['steps'] = [
    { id: `${id}-open`, name: 'open', action: { name: 'goto', url: site } },
  ];
  for (let index = 0; index < checks; index += 1) {
    steps.push({
      id: `${id}-check-${index}`,
      name: `check ${index}`,
      action: { name: 'assertText', selector: `#s${index}`, value: `Section ${index}` },
    });
    if (screenshots)
      steps.push({
        id: shotStepId(index),
        name: `screenshot ${index}`,
        action: { name: 'assertScreenshot' },
      });
  }
  return {
    id,
    name,
    type: 'ui',
    config: { viewport, use: { trace: 'off', screenshot: 'off', video: 'off' } },
    vars: null,
    parameters: null,
    files: [],
    steps,
  };
}

/** The run: a warm-up, then the two measured tests, in the order their names sort. */
function runTests(visualFirst: boolean): CompilableTest[] {
  return [
    browserTest(testIds.warmUp, 'a warm-up', false),
    browserTest(testIds.plain, visualFirst ? 'c without screenshots' : 'b without screenshots', false),
    browserTest(testIds.visual, visualFirst ? 'b with 10 screenshots' : 'c with 10 screenshots', true),
  ];
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-visual-'));
let folder = 0;
async function execute(tests: CompilableTest[], baselines: Map<string, Buffer>): Promise<ExecutionResult> {
  const project = compileProject({ tests, config: null, secretNames: [] });
  for (const [file, content] of baselines) project.files.set(file, content);
  const dir = path.join(root, `run-${folder++}`);
  const result = await executeProject({ dir, project, env: {}, signal: new AbortController().signal });
  if (result.status !== 'passed')
    throw new Error(`run ${result.status}: ${result.runnerError ?? result.log}`);
  return result;
}

// The first run records the candidates, which become the baselines (the page never changes).
const baselines = new Map<string, Buffer>();
const first = await execute(runTests(false), baselines);
const candidates = first.tests.find((test) => test.testId === testIds.visual)?.visual ?? [];
for (const check of candidates) {
  if (check.status !== 'new' || !check.actual) throw new Error(`no candidate for ${check.stepId}`);
  baselines.set(visualBaselineFile(testIds.visual, check.stepId), fs.readFileSync(check.actual.path));
}
if (baselines.size !== checks) throw new Error(`${baselines.size} candidates, expected ${checks}`);

// The floor: the same two tests in raw Playwright, with its own toHaveScreenshot baselines.
const resolved = await resolveChromium();
if (!resolved.ok) throw new Error(resolved.problem);
const rawDir = path.join(root, 'raw');
fs.mkdirSync(path.join(rawDir, 'tests'), { recursive: true });
await linkPlaywright(rawDir);
fs.writeFileSync(
  path.join(rawDir, 'playwright.config.mjs'),
  `export default ${JSON.stringify({
    testDir: './tests',
    workers: 1,
    retries: 0,
    reporter: [['json', { outputFile: 'report.json' }]],
    use: {
      baseURL: site,
      viewport,
      trace: 'off',
      screenshot: 'off',
      launchOptions: { executablePath: resolved.browser.executablePath, args: CHROMIUM_ARGS },
    },
  })};\n`,
);
const rawTest = (title: string, screenshots: boolean) =>
  [
    `test(${JSON.stringify(title)}, async ({ page }) => {`,
    `  await page.goto('/');`,
    ...Array.from({ length: checks }, (_, index) => [
      `  await expect(page.locator('#s${index}')).toHaveText('Section ${index}');`,
      ...(screenshots ? [`  await expect(page).toHaveScreenshot('shot-${index}.png');`] : []),
    ]).flat(),
    `});`,
  ].join('\n');
fs.writeFileSync(
  path.join(rawDir, 'tests', 'visual.spec.ts'),
  [
    `import { expect, test } from '@playwright/test';`,
    rawTest('a warm-up', false),
    rawTest('b without screenshots', false),
    rawTest('c with 10 screenshots', true),
    '',
  ].join('\n'),
);
const cli = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('@playwright/test/package.json'))),
  'cli.js',
);
async function runRaw(update: boolean): Promise<{ plain: number; visual: number }> {
  await promisify(execFile)(
    process.execPath,
    [cli, 'test', '--config', 'playwright.config.mjs', ...(update ? ['--update-snapshots=all'] : [])],
    { cwd: rawDir, env: { ...process.env, FORCE_COLOR: '0' } },
  );
  const report = JSON.parse(fs.readFileSync(path.join(rawDir, 'report.json'), 'utf8')) as {
    suites: Array<{
      specs: Array<{ title: string; tests: Array<{ results: Array<{ duration: number; status: string }> }> }>;
    }>;
  };
  const durationOf = (title: string) => {
    const result = report.suites[0]?.specs.find((spec) => spec.title === title)?.tests[0]?.results[0];
    if (result?.status !== 'passed') throw new Error(`raw ${title}: ${result?.status}`);
    return result.duration;
  };
  return { plain: durationOf('b without screenshots'), visual: durationOf('c with 10 screenshots') };
}
await runRaw(true);
const rawRatios: number[] = [];
const rawPerScreenshot: number[] = [];

const rows: string[] = [];
const ratios: number[] = [];
const perScreenshot: number[] = [];
const loads: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  loads.push(os.loadavg()[0] as number);
  const result = await execute(runTests(round % 2 === 1), baselines);
  const timeOf = (id: string) => result.tests.find((test) => test.testId === id)?.durationMs ?? Number.NaN;
  const visual = result.tests.find((test) => test.testId === testIds.visual);
  const matched = visual?.visual?.filter((check) => check.status === 'passed').length ?? 0;
  if (matched !== checks) throw new Error(`round ${round}: ${matched} of ${checks} screenshots matched`);
  const plainMs = timeOf(testIds.plain);
  const visualMs = timeOf(testIds.visual);
  ratios.push(visualMs / plainMs);
  perScreenshot.push((visualMs - plainMs) / checks);
  const floor = await runRaw(false);
  rawRatios.push(floor.visual / floor.plain);
  rawPerScreenshot.push((floor.visual - floor.plain) / checks);
  rows.push(
    `| ${round + 1} | ${round % 2 === 1 ? 'with first' : 'without first'} | ${plainMs} ms | ${visualMs} ms | ${(visualMs / plainMs).toFixed(2)} | ${floor.plain} ms | ${floor.visual} ms | ${(floor.visual / floor.plain).toFixed(2)} |`,
  );
  fs.rmSync(path.join(root, `run-${folder - 1}`), { recursive: true, force: true });
}
server.close();
fs.rmSync(root, { recursive: true, force: true });

const medianOf = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
const median = medianOf(ratios);
process.stdout.write(
  [
    `10 assertScreenshot steps (${viewport.width}×${viewport.height}, unchanged page, baselines present) vs the same test without them, in one run (${rounds} rounds; target overhead ≤ 10 %)`,
    '| round | order | without | with 10 screenshots | with ÷ without | raw without | raw with 10 toHaveScreenshot | raw with ÷ without |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    `median ratio ${median.toFixed(2)} (overhead ${((median - 1) * 100).toFixed(0)} % of the test's time), median ${medianOf(perScreenshot).toFixed(0)} ms per screenshot step`,
    `raw Playwright (the floor): median ratio ${medianOf(rawRatios).toFixed(2)}, median ${medianOf(rawPerScreenshot).toFixed(0)} ms per toHaveScreenshot; a screenshot step costs ${(medianOf(perScreenshot) / Math.max(1, medianOf(rawPerScreenshot))).toFixed(2)}× a toHaveScreenshot`,
    `load average (1 min) before the timed runs: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
    '',
  ].join('\n'),
);
process.exit(0);
