import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  compileProject,
  type ExecutionResult,
  executeProject,
} from '../../src/runner/index.ts';
import {
  alive,
  commandLine,
  descendantsOf,
  group,
  INBOX_API_KEY,
  readTree,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';

const SECRET = 's3cr3t-Value-9f8e7d';
const ID_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const ID_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const ID_C = 'cccccccc-0000-4000-8000-00000000000c';
const ID_D = 'dddddddd-0000-4000-8000-0000000000dd';

function apiTest(site: Site): CompilableTest {
  return {
    id: ID_C,
    name: 'Echo API',
    type: 'api',
    config: { use: { baseURL: site.url } },
    vars: { greeting: 'hi' },
    parameters: { p: 'pval' },
    files: [],
    steps: [
      step('Post', {
        name: 'request',
        method: 'POST',
        url: '/api/echo',
        headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' },
        body: { name: '{{parameters.p}}', n: 1, say: '{{vars.greeting}}' },
        variable: 'echo',
      }),
      step('Created', { name: 'assertStatus', value: 201 }),
      step('Name', { name: 'assertJson', path: 'received.name', value: 'pval' }),
      step('Said', { name: 'assertJson', path: '$.received.say', value: 'hi' }),
      step('Auth', { name: 'assertJson', path: '$.auth', value: 'Bearer {{secrets.API_TOKEN}}' }),
      step('List', { name: 'request', method: 'GET', url: '/api/items' }),
      step('OK', { name: 'assertStatus', value: 200 }),
      step('Tag', { name: 'assertJson', path: 'data[0].tags[1]', value: 'b' }),
      step('Whole item', {
        name: 'assertJson',
        path: '$.data[0]',
        value: { id: 7, name: 'seven', tags: ['a', 'b'] },
      }),
    ],
  };
}

describe('executeProject with real Chromium', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site.close();
    await removeTempDirs();
  });

  describe('one run with three configs (UI pass with video and repeatEach, UI fail with retries, API)', () => {
    let result: ExecutionResult;
    let dir: string;
    let compiledFiles: Map<string, Buffer | string>;

    beforeAll(async () => {
      const upload = step('Upload', { name: 'setInputFiles', selector: '#upload', files: ['hello.txt'] });
      const tests: CompilableTest[] = [
        uiTest(
          ID_A,
          'Passes with config',
          [
            step('Open', { name: 'goto', url: '/' }),
            step('Viewport', { name: 'assertText', selector: '#viewport', value: '800x600', exact: true }),
            group('Secret typing', [
              step('Type secret', { name: 'fill', selector: '#name', value: '{{secrets.API_TOKEN}}' }),
              step('Mirror', {
                name: 'assertText',
                selector: '#mirror',
                value: '{{secrets.API_TOKEN}}',
                exact: true,
              }),
            ]),
            upload,
            step('Uploaded', {
              name: 'assertText',
              selector: '#uploaded',
              value: 'hello.txt:file body',
              exact: true,
            }),
            step('Kind', { name: 'extract', selector: '#next', attribute: 'data-kind', variable: 'kind' }),
            step('Use var', { name: 'fill', selector: '#name', value: 'kind={{vars.kind}}' }),
            step('Var mirrored', { name: 'assertText', selector: '#mirror', value: 'kind=link' }),
            step('Snap', { name: 'screenshot', label: 'home' }),
          ],
          {
            config: {
              use: { baseURL: site.url, video: 'on' },
              viewport: { width: 800, height: 600 },
              repeatEach: 2,
            },
            files: [{ filename: 'hello.txt', content: Buffer.from('file body'), stepId: upload.id }],
          },
        ),
        uiTest(
          ID_B,
          'Fails on a missing button',
          [
            step('Open', { name: 'goto', url: '/' }),
            step('Click missing', { name: 'click', selector: '#missing-button' }),
            step('Not run', {
              name: 'request',
              method: 'POST',
              url: '/api/echo',
              body: { marker: 'should-not-run' },
            }),
            step(
              'Cleanup',
              { name: 'request', method: 'POST', url: '/api/echo', body: { marker: 'cleanup' } },
              { condition: { type: 'alwaysRun' } },
            ),
            step(
              'Evidence',
              { name: 'screenshot', label: 'after-failure' },
              { condition: { type: 'alwaysRun' } },
            ),
          ],
          {
            config: {
              use: {
                baseURL: site.url,
                trace: 'retain-on-failure',
                screenshot: 'only-on-failure',
                // Also the evidence screenshot's limit (Playwright's screenshot honours the action
                // timeout): 1 s was too short for it on a busy 2-core machine.
                actionTimeout: 3000,
              },
              retries: 1,
            },
          },
        ),
        apiTest(site),
        uiTest(
          ID_D,
          'Follows the mailed link',
          [
            step('Open sign-up', { name: 'goto', url: '/signup' }),
            step('Sign up', { name: 'click', selector: '#signup' }),
            step('Mail', {
              name: 'waitForEmail',
              inbox: '{{vars.inbox}}',
              subjectContains: 'confirm YOUR',
              from: 'noreply@',
              timeoutMs: 10_000,
              variable: 'mail',
            }),
            step('Sent', { name: 'assertText', selector: '#sent', value: 'sent' }),
            step('Follow', { name: 'gotoEmailLink', variable: 'mail', contains: '/confirm' }),
            step('Confirmed', { name: 'assertTitle', value: 'Confirmed' }),
            step('New token', { name: 'assertUrl', value: 'token=new' }),
          ],
          { config: { use: { baseURL: site.url } }, vars: { inbox: 'signup@inbox.test' } },
        ),
      ];
      const project = compileProject({ tests, config: null, secretNames: ['API_TOKEN'] });
      compiledFiles = project.files;
      dir = await tempDir('exec');
      result = await executeProject({
        dir,
        project,
        env: {
          STEPDECK_SECRET_API_TOKEN: SECRET,
          STEPDECK_API_URL: site.url,
          STEPDECK_API_KEY: INBOX_API_KEY,
        },
        signal: new AbortController().signal,
        timeoutMs: 180_000,
      });
    }, 200_000);

    it('reports failed with stats per Playwright test (repeatEach multiplies)', () => {
      expect(result.runnerError).toBeUndefined();
      expect(result.status).toBe('failed');
      expect(result.stats).toEqual({ passed: 4, failed: 1, skipped: 0, total: 5 });
      expect(result.tests.filter((test) => test.testId === ID_A).map((test) => test.status)).toEqual([
        'passed',
        'passed',
      ]);
      expect(new Set(result.tests.map((test) => test.project)).size).toBe(3);
      expect(existsSync(result.jsonReportPath)).toBe(true);
      expect(existsSync(path.join(result.htmlReportDir, 'index.html'))).toBe(true);
    });

    it('reports the failing test with message, location, retries and artifacts', () => {
      const failing = result.tests.find((test) => test.testId === ID_B);
      expect(failing).toBeDefined();
      if (!failing) return;
      expect(failing.status).toBe('failed');
      expect(failing.name).toBe('Fails on a missing button');
      expect(failing.attempts).toBe(2);
      expect(failing.errorMessage).toContain('Timeout 3000ms exceeded');
      expect(failing.errorMessage).toContain('#missing-button');
      // The error location is the step the user wrote, not the generated spec file.
      expect(failing.errorLocation).toBe('Click missing');
      expect(failing.failedStep?.action).toBe('click #missing-button');
      // Playwright's own text (with the generated file's line) stays available, paths relative.
      const spec = compiledFiles.get(
        [...compiledFiles.keys()].find((file) => file.includes('fails-on-a-missing-button')) ?? '',
      );
      const line = String(spec)
        .split('\n')
        .findIndex((text) => text.includes('#missing-button'));
      expect(failing.errorDetail).toMatch(
        new RegExp(`tests/fails-on-a-missing-button-bbbbbbbb\\.spec\\.ts:${line + 1}:\\d+`),
      );
      expect(failing.errorDetail).not.toMatch(/\/tmp\//);
      const kinds = failing.artifacts.map((artifact) => artifact.kind);
      expect(kinds).toContain('trace');
      expect(kinds).toContain('screenshot');
      expect(failing.artifacts.map((artifact) => artifact.file)).toEqual(
        expect.arrayContaining([
          'after-failure.png',
          'retry1-after-failure.png',
          'trace.zip',
          'retry1-trace.zip',
        ]),
      );
      for (const artifact of failing.artifacts) expect(existsSync(artifact.path)).toBe(true);
      // alwaysRun ran after the failure (once per attempt); the step after the failure did not.
      const markers = site.requests.map((request) => request.body).filter((body) => body.includes('marker'));
      expect(markers.filter((body) => body.includes('cleanup'))).toHaveLength(2);
      expect(markers.some((body) => body.includes('should-not-run'))).toBe(false);
    });

    it('maps config (viewport, baseURL, uploads, vars) and records video and screenshots', () => {
      const passing = result.tests.filter((test) => test.testId === ID_A);
      for (const test of passing) {
        expect(test.errorMessage).toBeNull();
        expect(test.attempts).toBe(1);
        expect(test.artifacts.filter((artifact) => artifact.kind === 'video')).toHaveLength(1);
        const video = test.artifacts.find((artifact) => artifact.kind === 'video');
        expect(video?.file.endsWith('.webm')).toBe(true);
        expect(readFileSync(video?.path ?? '').length).toBeGreaterThan(0);
        const shot = test.artifacts.find((artifact) => artifact.file.endsWith('home.png'));
        expect(shot?.kind).toBe('screenshot');
        expect(
          readFileSync(shot?.path ?? '')
            .subarray(1, 4)
            .toString(),
        ).toBe('PNG');
      }
      expect(passing.map((test) => test.artifacts.find((a) => a.kind === 'video')?.file)).toEqual([
        expect.not.stringMatching(/^run2-/),
        expect.stringMatching(/^run2-/),
      ]);
    });

    it('runs the API test without a browser page', () => {
      const api = result.tests.find((test) => test.testId === ID_C);
      expect(api?.status).toBe('passed');
      const post = site.requests.find((request) => request.body.includes('pval'));
      expect(post?.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(JSON.parse(post?.body ?? '{}')).toEqual({ name: 'pval', n: 1, say: 'hi' });
      const apiSpec = [...compiledFiles.entries()].find(([file]) => file.includes('echo-api'));
      expect(String(apiSpec?.[1])).toContain('async ({ request }, testInfo)');
    });

    it('waits for the mailed link (messages since the triggering step) and follows it', () => {
      const mailTest = result.tests.find((test) => test.testId === ID_D);
      expect(mailTest?.errorMessage ?? null).toBeNull();
      expect(mailTest?.status).toBe('passed');
      const polls = site.inboxPolls.filter((poll) => poll.inbox === 'signup@inbox.test');
      expect(polls.length).toBeGreaterThan(1); // the first poll came before the delivery
      for (const poll of polls) {
        expect(poll.apiKey).toBe(INBOX_API_KEY);
        expect(poll.since && Date.parse(poll.since)).toBeGreaterThan(Date.now() - 600_000);
      }
    });

    it('keeps the secret out of every generated file, the log and the JSON report', async () => {
      for (const [file, content] of compiledFiles) expect(String(content), file).not.toContain(SECRET);
      const written = await readTree(dir);
      for (const [file, content] of written) {
        if (file.startsWith('test-results') || file.startsWith('playwright-report')) continue;
        expect(content.toString('latin1'), file).not.toContain(SECRET);
      }
      expect(readFileSync(result.jsonReportPath, 'utf8')).not.toContain(SECRET);
      expect(result.log).not.toContain(SECRET);
      expect(result.log).toContain('passed');
    });
  });

  it('cancels a running test: the whole process tree ends', async () => {
    const project = compileProject({
      tests: [
        uiTest(
          'dddddddd-0000-4000-8000-00000000000d',
          'Waits a minute',
          [step('Open', { name: 'goto', url: site.url }), step('Wait', { name: 'wait', ms: 60_000 })],
          { config: { timeout: 120_000 } },
        ),
      ],
      config: null,
      secretNames: [],
    });
    const controller = new AbortController();
    let pid = 0;
    const running = executeProject({
      dir: await tempDir('cancel'),
      project,
      env: {},
      signal: controller.signal,
      onSpawn: (spawned) => {
        pid = spawned;
      },
    });
    // Wait until Chromium is up (the `wait` step follows the page load).
    const deadline = Date.now() + 60_000;
    let tree: number[] = [];
    while (Date.now() < deadline) {
      tree = pid ? descendantsOf(pid) : [];
      if (tree.some((child) => commandLine(child).includes('chromium'))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(tree.some((child) => commandLine(child).includes('chromium'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    tree = descendantsOf(pid);
    controller.abort();
    const result = await running;
    expect(result.status).toBe('runnerError');
    expect(result.cancelled).toBe(true);
    expect(result.runnerError).toBe('the run was cancelled');
    expect(result.durationMs).toBeLessThan(60_000); // the 60 s step never completed
    expect(alive([pid, ...tree])).toEqual([]);
  }, 90_000);

  it('a cancel that arrives while the project is being prepared still stops the run', async () => {
    const project = compileProject({
      tests: [
        uiTest(
          'dddddddd-0000-4000-8000-00000000000e',
          'Waits a minute',
          [step('Open', { name: 'goto', url: site.url }), step('Wait', { name: 'wait', ms: 60_000 })],
          { config: { timeout: 120_000 } },
        ),
      ],
      config: null,
      secretNames: [],
    });
    const controller = new AbortController();
    const running = executeProject({
      dir: await tempDir('cancel-early'),
      project,
      env: {},
      signal: controller.signal,
    });
    // Past the synchronous start, into the directory writes: the event fires before the
    // child exists (a cancel milliseconds after the run started).
    setTimeout(() => controller.abort(), 0);
    const result = await running;
    expect(result.cancelled).toBe(true);
    expect(result.status).toBe('runnerError');
    expect(result.durationMs).toBeLessThan(60_000);
  }, 90_000);

  it('a missing browser is a runner error, while an API-only project needs none', async () => {
    const ui = compileProject({
      tests: [
        uiTest('eeeeeeee-0000-4000-8000-00000000000e', 'Needs a browser', [
          step('Open', { name: 'goto', url: site.url }),
        ]),
      ],
      config: null,
      secretNames: [],
    });
    const missing = await executeProject({
      dir: await tempDir('nobrowser'),
      project: ui,
      env: { CHROMIUM_PATH: '/nonexistent/chromium' },
      signal: new AbortController().signal,
    });
    expect(missing.status).toBe('runnerError');
    expect(missing.runnerError).toContain('CHROMIUM_PATH points to /nonexistent/chromium');
    expect(missing.tests).toEqual([]);

    const apiOnly = compileProject({ tests: [apiTest(site)], config: null, secretNames: ['API_TOKEN'] });
    const passed = await executeProject({
      dir: await tempDir('apionly'),
      project: apiOnly,
      env: { CHROMIUM_PATH: '/nonexistent/chromium', STEPDECK_SECRET_API_TOKEN: SECRET },
      signal: new AbortController().signal,
    });
    expect(passed.runnerError).toBeUndefined();
    expect(passed.status).toBe('passed');
    expect(passed.stats).toEqual({ passed: 1, failed: 0, skipped: 0, total: 1 });

    // The wall-clock limit ends a run like a cancel does.
    const slow = compileProject({
      tests: [
        { ...apiTest(site), steps: [step('Wait', { name: 'wait', ms: 60_000 })], config: { timeout: 0 } },
      ],
      config: null,
      secretNames: [],
    });
    const timedOut = await executeProject({
      dir: await tempDir('timeout'),
      project: slow,
      env: {},
      signal: new AbortController().signal,
      timeoutMs: 3_000,
    });
    expect(timedOut.status).toBe('runnerError');
    expect(timedOut.runnerError).toBe('the run timed out after 3000 ms');
    expect(timedOut.cancelled).toBeUndefined();
  }, 60_000);
});
