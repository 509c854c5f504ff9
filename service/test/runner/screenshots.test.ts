import { readFileSync } from 'node:fs';
import type { JSONReport, JSONReportSuite, JSONReportTestResult } from '@playwright/test/reporter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProject, type ExecutionResult, executeProject } from '../../src/runner/index.ts';
import { removeTempDirs, type Site, startSite, step, tempDir, uiTest } from './fixtures.ts';

/**
 * Screenshots a run takes, counted at the browser (Playwright's protocol log): with the default
 * `only-on-failure` a passing test takes none (Playwright would otherwise screenshot its pages
 * as they close and discard the picture: stepdeck-runtime.ts, skipDiscardedScreenshots), while
 * a failing test keeps its failure screenshot and `on` keeps the final one.
 */

const ids = {
  passing: 'c1000000-0000-4000-8000-000000000001',
  failing: 'c2000000-0000-4000-8000-000000000002',
  always: 'c3000000-0000-4000-8000-000000000003',
};

describe('screenshots of passing and failing tests', () => {
  let site: Site;
  let result: ExecutionResult;
  let report: JSONReport;

  beforeAll(async () => {
    site = await startSite();
    const open = step('Open', { name: 'goto', url: '/' });
    const tests = [
      uiTest(
        ids.passing,
        'Passes',
        [open, step('Heading', { name: 'assertText', selector: '#heading', value: 'Welcome' })],
        {
          config: { use: { baseURL: site.url } },
        },
      ),
      uiTest(
        ids.failing,
        'Fails',
        [open, step('Heading', { name: 'assertText', selector: '#heading', value: 'Goodbye' })],
        {
          config: { use: { baseURL: site.url, actionTimeout: 2000 } },
        },
      ),
      uiTest(ids.always, 'Passes with screenshots on', [open], {
        config: { use: { baseURL: site.url, screenshot: 'on' } },
      }),
    ];
    const dir = await tempDir('screenshots');
    result = await executeProject({
      dir,
      project: compileProject({ tests, config: null, secretNames: [] }),
      // Playwright's protocol log: every command the worker sends the browser, in each test's stderr.
      env: { DEBUG: 'pw:protocol' },
      signal: new AbortController().signal,
      timeoutMs: 120_000,
    });
    report = JSON.parse(readFileSync(result.jsonReportPath, 'utf8')) as JSONReport;
  }, 150_000);

  afterAll(async () => {
    await site.close();
    await removeTempDirs();
  });

  /** How many screenshots the browser was asked for during the test with this title. */
  function capturesOf(title: string): number {
    const results: JSONReportTestResult[] = [];
    const walk = (suite: JSONReportSuite) => {
      for (const spec of suite.specs)
        if (spec.title === title) results.push(...spec.tests.flatMap((test) => test.results));
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of report.suites) walk(suite);
    expect(results).toHaveLength(1);
    const stderr = results.flatMap((entry) =>
      entry.stderr.map((chunk) => ('text' in chunk ? chunk.text : '')),
    );
    // The log is there (else the count below would prove nothing).
    expect(stderr.join('').match(/Page\.navigate/g)?.length).toBeGreaterThan(0);
    return stderr.join('').match(/"method":"Page\.captureScreenshot"/g)?.length ?? 0;
  }

  /** The screenshot artifacts of the test with this id, once it ended with this status; each a PNG. */
  function screenshotsOf(id: string, status: 'passed' | 'failed'): string[] {
    const test = result.tests.find((candidate) => candidate.testId === id);
    expect(test?.status).toBe(status);
    const shots = test?.artifacts.filter((artifact) => artifact.kind === 'screenshot') ?? [];
    for (const shot of shots) expect(readFileSync(shot.path).subarray(1, 4).toString()).toBe('PNG');
    return shots.map((shot) => shot.file);
  }

  it('takes no screenshot of a passing test by default', () => {
    expect(result.runnerError).toBeUndefined();
    expect(screenshotsOf(ids.passing, 'passed')).toEqual([]);
    expect(capturesOf('Passes')).toBe(0);
  });

  it('keeps the failure screenshot of a failing test, taken once', () => {
    expect(screenshotsOf(ids.failing, 'failed')).toEqual(['test-failed-1.png']);
    expect(capturesOf('Fails')).toBe(1);
  });

  it('keeps the final screenshot of a passing test when screenshots are on', () => {
    expect(screenshotsOf(ids.always, 'passed')).toEqual(['test-finished-1.png']);
    expect(capturesOf('Passes with screenshots on')).toBe(1);
  });
});
