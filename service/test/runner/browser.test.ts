import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeBrowser,
  ffmpegDirName,
  findFfmpeg,
  prepareBrowsersPath,
  resolveChromium,
} from '../../src/runner/browser.ts';
import { compileProject, type ExecutionResult, executeProject } from '../../src/runner/index.ts';
import { removeTempDirs, type Site, startSite, step, tempDir, uiTest } from './fixtures.ts';

/**
 * A fresh machine has no Debian chromium or ffmpeg; this one has both, so the test hides them
 * with STEPDECK_SKIP_SYSTEM_BINARIES=1 and unsets CHROMIUM_PATH/FFMPEG_PATH: runs must then use
 * the binaries shipped in the npm packages.
 */
const require = createRequire(import.meta.url);
const NPM_ONLY = { STEPDECK_SKIP_SYSTEM_BINARIES: '1' };
const HIDDEN = ['CHROMIUM_PATH', 'FFMPEG_PATH', 'PLAYWRIGHT_BROWSERS_PATH', 'STEPDECK_SKIP_SYSTEM_BINARIES'];

/** The revision of `name` Playwright is pinned to (`browsers.json`). */
function revision(name: string): string | undefined {
  const core = path.dirname(
    require.resolve('playwright-core/package.json', {
      paths: [path.dirname(require.resolve('@playwright/test/package.json'))],
    }),
  );
  const json = JSON.parse(readFileSync(path.join(core, 'browsers.json'), 'utf8')) as {
    browsers: Array<{ name: string; revision: string }>;
  };
  return json.browsers.find((browser) => browser.name === name)?.revision;
}

/** A folder standing for `/usr/bin` with fake Chromium executables of these names. */
async function fakeSystem(name: string, binaries: string[]): Promise<string> {
  const dir = await tempDir(name);
  for (const binary of binaries) writeFileSync(path.join(dir, binary), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

describe('browser and ffmpeg from npm packages when the system has none', () => {
  const saved = new Map<string, string | undefined>();
  let cacheDir: string;
  let site: Site;

  beforeAll(async () => {
    for (const key of HIDDEN) {
      saved.set(key, process.env[key]);
      delete process.env[key];
    }
    cacheDir = await tempDir('browser-cache');
    // The runs' own uids (runner/isolation.ts) enter it to start the browser unpacked there.
    chmodSync(cacheDir, 0o711);
    process.env.STEPDECK_CACHE_DIR = cacheDir;
    site = await startSite();
  });
  afterAll(async () => {
    await site?.close();
    delete process.env.STEPDECK_CACHE_DIR;
    for (const [key, value] of saved) if (value !== undefined) process.env[key] = value;
    await removeTempDirs();
  });

  it('resolves CHROMIUM_PATH first, then the system headless shell, and names a missing CHROMIUM_PATH', async () => {
    const configured = await resolveChromium({ env: { CHROMIUM_PATH: '/bin/sh' }, cacheDir });
    expect(configured).toMatchObject({
      ok: true,
      browser: { source: 'CHROMIUM_PATH', executablePath: '/bin/sh' },
    });
    const missing = await resolveChromium({ env: { CHROMIUM_PATH: '/nonexistent/chromium' }, cacheDir });
    expect(missing).toEqual({
      ok: false,
      problem:
        'Chromium is not installed: CHROMIUM_PATH points to /nonexistent/chromium, which does not exist',
    });
    const systemBin = await fakeSystem('system-shell', ['chromium-headless-shell', 'chromium']);
    const system = await resolveChromium({
      env: {},
      cacheDir,
      browsersPath: path.join(cacheDir, 'none'),
      systemBin,
    });
    expect(system).toMatchObject({
      ok: true,
      browser: {
        source: 'system',
        executablePath: path.join(systemBin, 'chromium-headless-shell'),
        headlessShell: true,
        reason: `headless shell preferred over the full Chromium at ${path.join(systemBin, 'chromium')}: less CPU per test`,
      },
    });
  });

  it("prefers Playwright's headless shell to its full Chromium, which stands when no shell is found", async () => {
    const browsersPath = path.join(cacheDir, 'playwright-both');
    const full = path.join(browsersPath, `chromium-${revision('chromium')}`, 'chrome-linux64', 'chrome');
    const shell = path.join(
      browsersPath,
      `chromium_headless_shell-${revision('chromium-headless-shell')}`,
      'chrome-headless-shell-linux64',
      'chrome-headless-shell',
    );
    for (const file of [full, shell]) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
    }
    const both = await resolveChromium({ env: {}, cacheDir, browsersPath });
    expect(both).toMatchObject({ ok: true, browser: { source: 'playwright', executablePath: shell } });
    rmSync(shell);
    // No headless shell at all (the npm one cannot be unpacked: its cache is a file): the full one.
    const blocked = path.join(cacheDir, 'not-a-folder');
    writeFileSync(blocked, '');
    const fullOnly = await resolveChromium({
      env: { STEPDECK_SKIP_SYSTEM_BINARIES: '1' },
      cacheDir: blocked,
      browsersPath,
    });
    expect(fullOnly).toMatchObject({
      ok: true,
      browser: { source: 'playwright', executablePath: full, headlessShell: false },
    });
    if (fullOnly.ok)
      expect(fullOnly.browser.reason).toMatch(/^full Chromium: Chromium could not be unpacked/);
  });

  it('unpacks @sparticuz/chromium once into the cache and describes it as not the pinned revision', async () => {
    const first = await resolveChromium({
      env: NPM_ONLY,
      cacheDir,
      browsersPath: path.join(cacheDir, 'none'),
    });
    if (!first.ok) throw new Error(first.problem);
    expect(first.browser.source).toBe('npm');
    expect(first.browser.executablePath.startsWith(cacheDir)).toBe(true);
    expect(first.browser.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(first.browser.pinned).toBe(false);
    const repository = path.resolve(import.meta.dirname, '../../..');
    expect(realpathSync(first.browser.executablePath).startsWith(repository)).toBe(false);

    const again = await resolveChromium({
      env: NPM_ONLY,
      cacheDir,
      browsersPath: path.join(cacheDir, 'none'),
    });
    expect(again).toEqual(first);

    const description = await describeBrowser({
      env: NPM_ONLY,
      cacheDir,
      browsersPath: path.join(cacheDir, 'none'),
    });
    expect(description.warn).toBe(true);
    expect(description.line).toContain(
      `Chromium ${first.browser.version} from the npm package @sparticuz/chromium`,
    );
    expect(description.line).toContain("not Playwright's pinned Chromium");
  });

  it('prefers every headless shell to a full Chromium, unless CHROMIUM_PATH names one', async () => {
    // The default install on a machine with Debian's full Chromium: the npm shell, not /usr/bin/chromium.
    const systemBin = await fakeSystem('system-full', ['chromium']);
    const browsersPath = path.join(cacheDir, 'playwright-full-only');
    const playwrightFull = path.join(
      browsersPath,
      `chromium-${revision('chromium')}`,
      'chrome-linux64',
      'chrome',
    );
    mkdirSync(path.dirname(playwrightFull), { recursive: true });
    writeFileSync(playwrightFull, '#!/bin/sh\n', { mode: 0o755 });

    const overSystem = await resolveChromium({
      env: {},
      cacheDir,
      browsersPath: path.join(cacheDir, 'none'),
      systemBin,
    });
    if (!overSystem.ok) throw new Error(overSystem.problem);
    expect(overSystem.browser).toMatchObject({ source: 'npm', headlessShell: true });
    expect(overSystem.browser.reason).toBe(
      `headless shell preferred over the full Chromium at ${path.join(systemBin, 'chromium')}: less CPU per test`,
    );
    // ...and over Playwright's own full Chromium of the pinned revision.
    const overPinned = await resolveChromium({ env: {}, cacheDir, browsersPath, systemBin });
    if (!overPinned.ok) throw new Error(overPinned.problem);
    expect(overPinned.browser.source).toBe('npm');
    expect(overPinned.browser.reason).toContain(`the full Chromium at ${playwrightFull}`);
    const line = (await describeBrowser({ env: {}, cacheDir, browsersPath, systemBin })).line;
    expect(line).toContain(
      `headless shell preferred over the full Chromium at ${playwrightFull}: less CPU per test`,
    );

    // CHROMIUM_PATH still wins, even naming a full Chromium.
    const named = await resolveChromium({
      env: { CHROMIUM_PATH: path.join(systemBin, 'chromium') },
      cacheDir,
      browsersPath,
      systemBin,
    });
    expect(named).toMatchObject({
      ok: true,
      browser: { source: 'CHROMIUM_PATH', executablePath: path.join(systemBin, 'chromium') },
    });
  });

  it('finds ffmpeg in FFMPEG_PATH, then the system, then @ffmpeg-installer/linux-x64', () => {
    expect(findFfmpeg({ FFMPEG_PATH: '/bin/sh' })).toBe('/bin/sh');
    expect(findFfmpeg({ FFMPEG_PATH: '/nonexistent/ffmpeg' })).toBeNull();
    const shipped = findFfmpeg(NPM_ONLY);
    expect(shipped).toMatch(/@ffmpeg-installer\/linux-x64\/ffmpeg$/);
    if (existsSync('/usr/bin/ffmpeg')) expect(findFfmpeg({})).toBe('/usr/bin/ffmpeg');
  });

  it('links ffmpeg for Playwright once when the batches of a split run prepare it at the same moment', async () => {
    // The slots of one process start a run's batches together; on a fresh install each finds
    // no link yet, and a temporary name made of the pid and the millisecond made one fail.
    const browsersPath = path.join(await tempDir('browsers-path'), 'ms-playwright');
    const ffmpeg = findFfmpeg(NPM_ONLY) ?? '';
    for (const source of [ffmpeg, '/bin/sh']) {
      const prepared = await Promise.all(
        Array.from({ length: 8 }, () => prepareBrowsersPath(browsersPath, source)),
      );
      const link = path.join(browsersPath, ffmpegDirName(), 'ffmpeg-linux');
      expect(prepared).toEqual(Array.from({ length: 8 }, () => link));
      expect(realpathSync(link)).toBe(realpathSync(source));
    }
  });

  it('runs a real UI test with video on the npm Chromium and the npm ffmpeg', async () => {
    process.env.STEPDECK_SKIP_SYSTEM_BINARIES = '1';
    let result: ExecutionResult;
    const dir = await tempDir('browser-run');
    try {
      const project = compileProject({
        tests: [
          uiTest(
            'eeeeeeee-0000-4000-8000-00000000000e',
            'Opens the site',
            [
              step('Open', { name: 'goto', url: '/' }),
              step('Viewport', { name: 'assertText', selector: '#viewport', value: '800x600', exact: true }),
            ],
            { config: { use: { baseURL: site.url, video: 'on' }, viewport: { width: 800, height: 600 } } },
          ),
        ],
        config: null,
        secretNames: [],
      });
      result = await executeProject({
        dir,
        project,
        env: {},
        signal: new AbortController().signal,
        browsersPath: path.join(cacheDir, 'ms-playwright'),
      });
    } finally {
      delete process.env.STEPDECK_SKIP_SYSTEM_BINARIES;
    }
    expect(result.runnerError).toBeUndefined();
    expect(result.status).toBe('passed');
    expect(result.tests.map((test) => test.status)).toEqual(['passed']);
    const video = result.tests[0]?.artifacts.find((artifact) => artifact.kind === 'video');
    expect(readFileSync(video?.path ?? '').subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
    expect(readFileSync(path.join(dir, 'playwright.config.ts'), 'utf8')).toContain(
      'process.env.CHROMIUM_PATH',
    );
    expect(result.log).toContain('Opens the site');
  });
});
