import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stepdeck, webTarget } from '../../src/runner/compiler/runtime/stepdeck-runtime.ts';
import { runnerCacheEnv } from '../../src/runner/executor.ts';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { isolationStatus } from '../../src/runner/isolation.ts';
import { until } from '../modules/runs/service-process.ts';
import {
  commandLine,
  descendantsOf,
  environOf,
  removeTempDirs,
  type Site,
  startSite,
  step,
  tempDir,
  uiTest,
} from './fixtures.ts';

/**
 * Defence in depth: the runner's processes live in a directory, HOME and TMPDIR of
 * their own with none of the service's environment, and the browser context loads nothing but
 * http(s) even when a navigation slips past the step-level checks.
 */
describe('runner sandbox', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('gives Playwright its own cwd, HOME and TMPDIR and none of the service’s environment', async () => {
    const dir = await tempDir('sandbox');
    const project = compileProject({
      tests: [
        {
          ...uiTest('abababab-0000-4000-8000-00000000000a', 'Waits', [
            step('Wait', { name: 'wait', ms: 4_000 }),
          ]),
          type: 'api',
        },
      ],
      config: null,
      secretNames: [],
    });
    // What the tests see, written by the test itself: the worker may have been started before
    // the run (standby-worker-main.ts), so its environment at exec (/proc) is not what it runs
    // with.
    // In the run's own folder: with a uid of its own (isolation.ts), the run can write nowhere else.
    const seenFile = path.join(dir, 'seen.json');
    const testId = 'abababab-0000-4000-8000-00000000000a';
    project.files.set(
      project.specFiles.get(testId) as string,
      `import fs from 'node:fs';
import { test } from '@playwright/test';
test('Waits', { annotation: [{ type: 'stepdeck-test-id', description: '${testId}' }] }, async () => {
  fs.writeFileSync(${JSON.stringify(seenFile)}, JSON.stringify({ env: process.env, cwd: process.cwd() }));
  await new Promise((resolve) => setTimeout(resolve, 4_000));
});
`,
    );
    const previous = { DATABASE_URL: process.env.DATABASE_URL, SESSION_SECRET: process.env.SESSION_SECRET };
    process.env.DATABASE_URL = 'postgres://service:hunter2@localhost/stepdeck';
    process.env.SESSION_SECRET = 'service-only-secret';
    let seen: { env: Map<string, string>; cwd: string } | undefined;
    let onSpawn: (pid: number) => void = () => {};
    const spawned = new Promise<number>((resolve) => {
      onSpawn = resolve;
    });
    const run = executeProject({
      dir,
      project,
      env: { STEPDECK_API_URL: 'http://127.0.0.1:1' },
      signal: new AbortController().signal,
      onSpawn,
    });
    try {
      // The process the tests run in: Playwright's worker. It and the runner above it may have
      // been started before the run (standby runners): their environment at exec is the
      // neutral one they waited with, checked here as well.
      const supervisor = await spawned;
      const worker = await until(
        async () => {
          for (const pid of descendantsOf(supervisor))
            if (commandLine(pid).includes('workerProcessEntry')) return pid;
          return undefined;
        },
        20_000,
        'the Playwright worker',
      );
      await until(() => existsSync(seenFile), 20_000, 'the test to run');
      const written = JSON.parse(readFileSync(seenFile, 'utf8')) as {
        env: Record<string, string>;
        cwd: string;
      };
      seen = { env: new Map(Object.entries(written.env)), cwd: written.cwd };
      expect(readlinkSync(`/proc/${worker}/cwd`)).toBe(dir);
      for (const pid of [supervisor, ...descendantsOf(supervisor)]) {
        const env = environOf(pid);
        expect(env.has('DATABASE_URL'), commandLine(pid)).toBe(false);
        expect(env.has('SESSION_SECRET'), commandLine(pid)).toBe(false);
      }
    } finally {
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    expect(seen.cwd).toBe(dir);
    expect(seen.env.get('HOME')).toBe(path.join(dir, '.home'));
    expect(seen.env.get('TMPDIR')).toBe(path.join(dir, '.tmp'));
    expect(seen.env.has('DATABASE_URL')).toBe(false);
    expect(seen.env.has('SESSION_SECRET')).toBe(false);
    expect(seen.env.get('STEPDECK_API_URL')).toBe('http://127.0.0.1:1');
    const allowed = new Set([
      'PATH',
      'USER',
      'LANG',
      'LC_ALL',
      'TZ',
      'CHROMIUM_PATH',
      'XDG_CACHE_HOME',
      'HOME',
      'TMPDIR',
      'STEPDECK_API_URL',
      // Chromium's own sandbox is on (runner/isolation.ts).
      'STEPDECK_CHROMIUM_SANDBOX',
      // The host's runner caches (transform and compile output of the generated project only).
      'NODE_COMPILE_CACHE',
      // What Playwright's runner and Node's fork add for the worker.
      'BROWSERSLIST_IGNORE_OLD_DATA',
      'DEBUG_COLORS',
      'NODE_CHANNEL_FD',
      'NODE_CHANNEL_SERIALIZATION_MODE',
      // What Playwright's worker sets for the tests.
      'TEST_WORKER_INDEX',
      'TEST_PARALLEL_INDEX',
    ]);
    // With a uid of its own, the run's caches are its runner's own (wiped with its uid), else the host's.
    if (isolationStatus().mode === 'uid')
      expect(seen.env.get('NODE_COMPILE_CACHE')).toMatch(/\/stepdeck-waiting-\d+\/\d+-\w+\/\.cache\/node$/);
    else expect(seen.env.get('NODE_COMPILE_CACHE')).toBe(runnerCacheEnv().NODE_COMPILE_CACHE);
    const unexpected = [...seen.env.keys()].filter(
      (key) =>
        !allowed.has(key) && !key.startsWith('PLAYWRIGHT_') && !['FORCE_COLOR', 'NO_COLOR'].includes(key),
    );
    expect(unexpected).toEqual([]);
    expect((await run).status).toBe('passed');
  }, 60_000);

  it('resolves step URLs like Playwright and refuses every scheme but http(s)', () => {
    expect(webTarget('/a?b=1', 'http://site.test/x/', 'goto')).toBe('http://site.test/a?b=1');
    expect(webTarget('localhost:3000/x', undefined, 'goto')).toBe('http://localhost:3000/x');
    expect(webTarget('about:blank', undefined, 'goto')).toBe('about:blank');
    expect(() => webTarget('about:blank', undefined, 'request')).toThrow('"about:" is not allowed');
    expect(() => webTarget('secret.json', 'file:///var/lib/stepdeck/', 'goto')).toThrow(
      'goto: only http and https URLs may be opened; "file:" is not allowed (secret.json)',
    );
    for (const url of [
      'file:///etc/passwd',
      ' FILE:///etc/passwd',
      'view-source:http://x/',
      'data:text/html,x',
    ])
      expect(() => webTarget(url, 'http://site.test/', 'goto'), url).toThrow('is not allowed');
    expect(() => webTarget('/relative', undefined, 'request')).toThrow('no baseURL is set');
  });

  it('setInputFiles takes only the test’s uploaded files, never a path of the server', () => {
    const project = compileProject({
      tests: [
        uiTest(
          'abababab-0000-4000-8000-00000000000b',
          'Uploads',
          [
            step('Server file', { name: 'setInputFiles', selector: '#upload', files: ['/etc/passwd'] }),
            step('Traversal', {
              name: 'setInputFiles',
              selector: '#upload',
              files: ['../../stepdeck.sqlite'],
            }),
          ],
          {
            files: [{ stepId: 'other', filename: '../../stepdeck.sqlite', content: Buffer.from('uploaded') }],
          },
        ),
      ],
      config: null,
      secretNames: [],
    });
    const spec = [...project.files].find(([name]) => name.endsWith('.spec.ts'))?.[1] as string;
    expect(spec).toContain('setInputFiles: the file \\"/etc/passwd\\" was not uploaded for this step');
    expect(spec).not.toContain('sd.file("/etc');
    // The uploaded file of that name is used, written inside the project's files/ folder.
    const uploads = [...project.files.keys()].filter((name) => name.startsWith('files/'));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatch(/^files\/[^/]+\/[^/]+\/stepdeck\.sqlite$/);
    expect(String(project.files.get(uploads[0] as string))).toBe('uploaded');
    expect(spec).toContain(`sd.file(${JSON.stringify(uploads[0])})`);
  });

  it('blocks a browser-initiated load of a file: URL in the guarded context and says so', async () => {
    const canaryDir = await tempDir('canary');
    const canaryFile = path.join(canaryDir, 'canary.txt');
    writeFileSync(canaryFile, 'canary-content-42');
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox'],
    });
    try {
      const page = await (await browser.newContext()).newPage();
      const sd = new Stepdeck({ project: { use: { baseURL: site.url } } } as unknown as TestInfo, {});
      await sd.guard(page);
      // Straight to Playwright, past the step-level check: the context itself must refuse it.
      await expect(page.goto(`file://${canaryFile}`)).rejects.toThrow('ERR_BLOCKED_BY_CLIENT');
      // Chromium shows its error page instead of the file.
      await page.waitForURL((url) => url.protocol === 'chrome-error:');
      await page.waitForLoadState();
      expect(await page.content()).not.toContain('canary-content-42');
      expect(() => sd.assertNoBlockedLoad()).toThrow(
        `the page tried to open "file://${canaryFile}": only http and https URLs may be opened, so it was blocked`,
      );
      // The same file behind an upper-case scheme or view-source: (Chromium loads file: for
      // both), each in another page of the guarded context.
      for (const variant of [`FILE://${canaryFile}`, `view-source:file://${canaryFile}`]) {
        const other = await page.context().newPage();
        await expect(other.goto(variant)).rejects.toThrow('ERR_BLOCKED_BY_CLIENT');
        await other.waitForURL((url) => url.protocol === 'chrome-error:');
        await other.waitForLoadState();
        expect(await other.content()).not.toContain('canary-content-42');
        expect(() => sd.assertNoBlockedLoad()).toThrow(`the page tried to open "file://${canaryFile}"`);
        await other.close();
      }
      // http(s) still loads, relative to baseURL.
      await sd.goto(page, '/');
      expect(await page.title()).toBe('Stepdeck Demo');
      sd.assertNoBlockedLoad();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
