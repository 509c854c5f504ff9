/**
 * What a run needs before Playwright starts: the environment it inherits, its own HOME and
 * TMPDIR, where Playwright is, the isolation proved once per process, the shared compile
 * caches, and the project's files written and linked to Playwright.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultBrowsersPath, resolveChromium } from './browser.ts';
import type { CompiledProject } from './compiler/types.ts';
import {
  checkIsolation,
  defaultUidRange,
  type IsolationSettings,
  type IsolationStatus,
} from './isolation.ts';
import { runTempRoot } from './temp-root.ts';

const require = createRequire(import.meta.url);

/**
 * Environment passed through from the service; everything else (DATABASE_URL...) stays out.
 * HOME and TMPDIR are the run's own (see {@link runnerHome}), never the service's.
 */
export const PASS_ENV = ['PATH', 'USER', 'LANG', 'LC_ALL', 'TZ', 'CHROMIUM_PATH', 'XDG_CACHE_HOME'];

/**
 * The run's own HOME and TMPDIR, inside its project directory: the browser's profile and
 * anything the test writes stay with the run and are removed with it.
 */
export function runnerHome(dir: string): { HOME: string; TMPDIR: string } {
  return { HOME: path.join(dir, '.home'), TMPDIR: path.join(dir, '.tmp') };
}

export function playwrightPaths(): { cli: string; nodeModules: string; playwrightCore: string } {
  const manifest = require.resolve('@playwright/test/package.json');
  const packageDir = path.dirname(manifest);
  const core = path.dirname(require.resolve('playwright-core/package.json', { paths: [packageDir] }));
  return {
    cli: path.join(packageDir, 'cli.js'),
    nodeModules: path.dirname(path.dirname(packageDir)),
    playwrightCore: core,
  };
}

let isolationChecked: { key: string; status: Promise<IsolationStatus> } | undefined;

/**
 * Decides how runs are isolated here and proves it works (isolation.ts): the runner's uid
 * must reach Node, the runner's own scripts, Playwright and the browser, and Chromium's
 * sandbox must be able to start. Once per process and settings. Rejects with one line naming
 * the setting.
 */
export function configureIsolation(
  settings: IsolationSettings = { isolation: 'on', uidRange: defaultUidRange },
): Promise<IsolationStatus> {
  const key = JSON.stringify(settings);
  if (isolationChecked?.key === key) return isolationChecked.status;
  const status = (async () => {
    runTempRoot();
    const { cli, playwrightCore } = playwrightPaths();
    const browsersPath = defaultBrowsersPath();
    const chromium = await resolveChromium({ browsersPath });
    const paths = [
      process.execPath,
      fileURLToPath(new URL('./supervisor-main.ts', import.meta.url)),
      cli,
      path.join(playwrightCore, 'package.json'),
      ...(chromium.ok ? [chromium.browser.executablePath] : []),
    ];
    return checkIsolation(settings, { paths });
  })();
  isolationChecked = { key, status };
  status.catch(() => {
    if (isolationChecked?.status === status) isolationChecked = undefined;
  });
  return status;
}

/**
 * Caches every Playwright process of this host shares, so that each run or batch does not
 * redo what the previous one did (a large share of a batch's start-up, see
 * docs/orchestrated-runs.md): Playwright's Babel transform of the generated files
 * (`PLAYWRIGHT_TRANSFORM_CACHE_DIR`, keyed by file path and content: hits need the same
 * folder, see modules/runs/work-dirs.ts) and Node's compiled code of Playwright itself
 * (`NODE_COMPILE_CACHE`). Both hold generated code only, never a secret (secrets reach the
 * run through its environment).
 */
export function runnerCacheEnv(root = defaultRunnerCacheDir()): Record<string, string> {
  return {
    PLAYWRIGHT_TRANSFORM_CACHE_DIR: path.join(root, 'transform'),
    NODE_COMPILE_CACHE: path.join(root, 'node'),
  };
}

function defaultRunnerCacheDir(): string {
  return path.join(os.tmpdir(), `stepdeck-runner-cache-${process.getuid?.() ?? 'user'}`);
}

/** Creates the cache folders (owner only) so that the processes writing into them never race to. */
export async function prepareRunnerCache(env: Record<string, string>): Promise<void> {
  for (const dir of [env.PLAYWRIGHT_TRANSFORM_CACHE_DIR, env.NODE_COMPILE_CACHE])
    if (dir) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
}

export async function writeProject(dir: string, project: CompiledProject): Promise<void> {
  for (const [relative, content] of project.files) {
    const target = path.resolve(dir, relative);
    if (!target.startsWith(path.resolve(dir) + path.sep))
      throw new Error(`refusing to write outside ${dir}: ${relative}`);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, content);
  }
}

/** Makes `@playwright/test` resolvable from the project directory (a `node_modules` symlink). */
export async function linkPlaywright(dir: string): Promise<void> {
  const link = path.join(dir, 'node_modules');
  const existing = await fs.lstat(link).catch(() => null);
  if (existing) return;
  await fs.symlink(playwrightPaths().nodeModules, link, 'dir');
}

/** The isolation proved for this process, proving the default first when none was configured. */
export function isolationReady(): Promise<IsolationStatus> {
  return isolationChecked?.status ?? configureIsolation();
}
