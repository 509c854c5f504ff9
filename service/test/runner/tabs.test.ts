import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  type CompiledProject,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
  linkPlaywright,
  writeProject,
} from '../../src/runner/index.ts';
import { exportedRunEnv, removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';
import { passingTabSteps, startTabsSite, type TabsSite } from './tabs-site.ts';

/**
 * Tabs, popups and frames in real Chromium against a site on loopback: a `target=_blank`
 * link, a `window.open` popup, an iframe and a nested one. Each step passes where it should,
 * fails in the user's words where it should, and the compiled project of a popup flow runs
 * green with plain `npx playwright test`.
 */

const run = promisify(execFile);
const passingId = 'c0000000-0000-4000-8000-000000000000';
let serial = 0;
const failingId = () => `c1000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`;

function failing(name: string, last: CompilableTest['steps'][number], prepare: CompilableTest['steps'] = []) {
  return { id: failingId(), name, steps: [step('Open', { name: 'goto', url: '/' }), ...prepare, last] };
}

const failures = {
  noPopup: failing(
    'No popup',
    step('Open nothing', { name: 'waitForPopup', selector: '#nothing', timeout: 500 }),
  ),
  noTab: failing('No such tab', step('To reports', { name: 'switchTab', url: '/reports', timeout: 300 }), [
    step('Open help', { name: 'waitForPopup', selector: '#help' }),
  ]),
  noIndex: failing('No tab 3', step('Third tab', { name: 'switchTab', index: 2, timeout: 300 })),
  onlyTab: failing('Only tab', step('Close it', { name: 'closeTab' })),
  shallowFrame: failing(
    'Frame too shallow',
    step('Deep text', {
      name: 'assertText',
      selector: '#deep',
      value: 'Deep inside',
      frame: '#shop',
      timeout: 300,
    }),
  ),
};

describe('tabs, popups and frames (real Chromium)', () => {
  let site: TabsSite;
  let result: ExecutionResult;
  let project: CompiledProject;
  // A long flow of four tabs: on a loaded machine it takes longer than Playwright's default 30 s.
  const config = (url: string) => ({
    timeout: 120_000,
    use: { baseURL: url, actionTimeout: 10_000, trace: 'off', screenshot: 'off', video: 'off' },
  });
  const byId = (id: string): ExecutedTest => {
    const found = result.tests.find((test) => test.testId === id);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };
  const failure = (id: string) => {
    const test = byId(id);
    expect(test.status).toBe('failed');
    return test;
  };

  beforeAll(async () => {
    site = await startTabsSite();
    const tests: CompilableTest[] = [
      uiTest(passingId, 'Tabs and frames, every step', passingTabSteps(), {
        config: config(site.url),
        vars: { reply: 'Hi from chat' },
      }),
      ...Object.values(failures).map((test) =>
        uiTest(test.id, test.name, test.steps, { config: config(site.url) }),
      ),
    ];
    project = compileProject({ tests, config: null, secretNames: [] });
    result = await executeProject({
      dir: await tempDir('tabs'),
      project,
      env: {},
      signal: new AbortController().signal,
    });
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('compiles tab steps to a current page the later steps use, and frames to the step', () => {
    const spec = String(project.files.get(project.specFiles.get(passingId) ?? ''));
    expect(spec).toContain('async ({ page: firstPage }, testInfo) => {');
    expect(spec).toContain('  let page = firstPage;');
    expect(spec).toContain(
      `page = await sd.waitForPopup(page, sd.locator(page, "#help"), { selector: "#help" });`,
    );
    expect(spec).toContain('page = await sd.switchTab(page, { index: 0 });');
    expect(spec).toContain('page = await sd.closeTab(page, 0);');
    expect(spec).toContain('sd.frame(["#shop","#inner"]);');
    expect(project.files.has('stepdeck-tabs.ts')).toBe(true);
    // A test without tab steps keeps the fixture as it is.
    const plain = String(project.files.get(project.specFiles.get(failures.shallowFrame.id) ?? ''));
    expect(plain).toContain('async ({ page }, testInfo) => {');
    expect(plain).not.toContain('let page');
  });

  it('runs every tab and frame step green', () => {
    const test = byId(passingId);
    const failed = test.steps.filter((step) => step.status !== 'passed');
    expect(failed.map((step) => `${step.name}: ${step.error}`)).toEqual([]);
    expect(test.status).toBe('passed');
    expect(test.steps).toHaveLength(passingTabSteps().length);
  });

  it('a popup that never opens names the element and the wait', () => {
    const test = failure(failures.noPopup.id);
    expect(test.errorMessage).toBe(
      'Step "Open nothing" (waitForPopup #nothing) failed\nno new tab or popup opened after clicking #nothing within 500 ms',
    );
  });

  it('a tab that does not exist lists the open tabs', () => {
    expect(failure(failures.noTab.id).errorMessage).toBe(
      `Step "To reports" (switchTab url /reports) failed\nno tab matches url "/reports"; open tabs: 1. ${site.url}/ "Home", 2. ${site.url}/help "Help"`,
    );
    expect(failure(failures.noIndex.id).errorMessage).toBe(
      `Step "Third tab" (switchTab index 2) failed\nno tab has index 2 (0 is the first); open tabs: 1. ${site.url}/ "Home"`,
    );
  });

  it('closing the only tab is refused when the step runs', () => {
    expect(failure(failures.onlyTab.id).errorMessage).toBe(
      'Step "Close it" (closeTab) failed\ncannot close the only open tab',
    );
  });

  it('an element in a nested frame is not found one frame up, and the step names its frame', () => {
    const test = failure(failures.shallowFrame.id);
    expect(test.failedStep?.action).toBe('assertText #deep in #shop');
    expect(test.errorMessage).toMatch(/^Step "Deep text" \(assertText #deep in #shop\) failed\n/);
    expect(test.errorMessage).toContain('element(s) not found');
  });

  it('exports a popup flow that runs green with plain npx playwright test', async () => {
    const exported = compileProject({
      tests: [
        uiTest('c2000000-0000-4000-8000-000000000001', 'Popup flow', passingTabSteps(), {
          config: { timeout: 120_000, use: { baseURL: site.url } },
          vars: { reply: 'Hi from chat' },
        }),
      ],
      config: null,
      secretNames: [],
    });
    const dir = await tempDir('tabs-export');
    await writeProject(dir, exported);
    await linkPlaywright(dir);
    const { stdout } = await run('npx', ['playwright', 'test', '--reporter=line'], {
      cwd: dir,
      env: await exportedRunEnv(),
      timeout: 240_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npx playwright test failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stdout).toMatch(/1 passed/);
    expect(stdout).not.toMatch(/failed/);
  }, 360_000);
});
