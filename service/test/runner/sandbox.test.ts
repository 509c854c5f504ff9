import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../src/runner/browser.ts';
import { CHROMIUM_ARGS } from '../../src/runner/compiler/constants.ts';
import { webTarget } from '../../src/runner/compiler/runtime/stepdeck-runtime.ts';
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
 * their own with none of the service's environment; steps open only http(s) URLs, and a page
 * cannot reach `file:` by itself (Chromium refuses it; tried below as an attacker would).
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

  it('a page cannot load a file: URL by any way Chromium offers (no route needed)', async () => {
    const canaryDir = await tempDir('canary');
    const canaryFile = path.join(canaryDir, 'canary.txt');
    writeFileSync(canaryFile, 'canary-content-42');
    const file = `file://${canaryFile}`;
    // What a hostile page of a tenant's site may try; each must leave the canary unread.
    const pages: Record<string, string> = {
      '/link': `<a id="go" href="${file}">go</a>`,
      '/upper': `<a id="go" href="${file.replace('file:', 'FILE:')}">go</a>`,
      '/view-source': `<a id="go" href="view-source:${file}">go</a>`,
      '/popup': `<button id="go" onclick="window.open('${file}')">go</button>`,
      '/iframe': `<iframe src="${file}"></iframe>`,
      '/subresources': `<img src="${file}"><script src="${file}"></script><link rel="stylesheet" href="${file}">`,
      '/fetch': `<script>fetch('${file}').then((r) => r.text()).then((t) => document.body.append(t), () => {})</script>`,
      '/xhr': `<script>try { const x = new XMLHttpRequest(); x.open('GET', '${file}', false); x.send(); document.body.append(x.responseText) } catch {}</script>`,
      '/refresh': `<meta http-equiv="refresh" content="0;url=${file}">`,
      '/location': `<script>setTimeout(() => { location.href = '${file}' }, 10)</script>`,
    };
    const server = http.createServer((request, response) => {
      if (request.url === '/redirect') return void response.writeHead(302, { location: file }).end();
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<body>${pages[request.url ?? ''] ?? ''}</body>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    const browser = await chromium.launch({
      executablePath: resolved.browser.executablePath,
      args: CHROMIUM_ARGS,
    });
    // Every page and frame of the context, read with a bound (a refused frame may never answer).
    const contents = async (context: BrowserContext) => {
      const bounded = (read: Promise<string>) =>
        Promise.race([read.catch(() => ''), new Promise<string>((r) => setTimeout(() => r(''), 1_000))]);
      const texts: string[] = [];
      for (const page of context.pages())
        for (const frame of page.frames()) texts.push(await bounded(frame.content()));
      return texts.join('\n');
    };
    try {
      const tried: string[] = [];
      const attempts: Array<[string, (page: Page) => Promise<unknown>]> = [
        ...Object.keys(pages).map((route): [string, (page: Page) => Promise<unknown>] => [
          route,
          async (page) => {
            await page.goto(`${origin}${route}`);
            if (await page.locator('#go').count()) await page.locator('#go').click();
          },
        ]),
        ['/redirect', (page) => page.goto(`${origin}/redirect`)],
        [
          'a mocked redirect',
          async (page) => {
            await page
              .context()
              .route('**/mocked', (route) => route.fulfill({ status: 302, headers: { location: file } }));
            await page.goto(`${origin}/mocked`);
          },
        ],
        [
          'about:blank, then location',
          (page) =>
            page.evaluate((target) => {
              location.href = target;
            }, file),
        ],
        [
          'about:blank, then window.open',
          (page) =>
            page.evaluate((target) => {
              window.open(target);
            }, file),
        ],
      ];
      for (const [name, attempt] of attempts) {
        const context = await browser.newContext();
        context.setDefaultTimeout(5_000);
        const page = await context.newPage();
        await attempt(page).catch(() => {});
        await page.waitForTimeout(300);
        const seen = await contents(context);
        expect(seen, name).not.toContain('canary-content-42');
        tried.push(name);
        await context.close();
      }
      expect(tried).toHaveLength(Object.keys(pages).length + 4);
      // Only a load the browser starts itself (Playwright's goto) reads file:, and steps
      // never start one past webTarget (above): this is what the check stands in front of.
      const context = await browser.newContext();
      const own = await context.newPage();
      await own.goto(file);
      expect(await own.content()).toContain('canary-content-42');
      await context.close();
    } finally {
      await browser.close();
      server.close();
    }
  }, 120_000);
});
