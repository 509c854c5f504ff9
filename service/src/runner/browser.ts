import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createBrotliDecompress } from 'node:zlib';
import * as tar from 'tar';

/**
 * Finds the Chromium and the ffmpeg that runs use, so that `npm ci && npm start` is enough.
 *
 * Chromium, first found wins:
 *  1. `CHROMIUM_PATH`, whatever it names;
 *  2. a headless shell: Playwright's own `chromium-headless-shell` of the pinned revision (`npx
 *     playwright install chromium`), else the system's (`/usr/bin/chromium-headless-shell`, the
 *     Debian package chromium-headless-shell), else the one inside the npm package
 *     `@sparticuz/chromium` (an optional dependency of the service), unpacked once into the cache
 *     directory, never into the repository;
 *  3. a full Chromium: Playwright's own `chromium` of the pinned revision, else the system's
 *     (`/usr/bin/chromium`, `/usr/bin/chromium-browser`).
 * ffmpeg (video): `FFMPEG_PATH`; Playwright's own; `/usr/bin/ffmpeg`; `@ffmpeg-installer/linux-x64`.
 *
 * Runs are always headless, so any headless shell comes before any full Chromium: it is what
 * Playwright itself launches for headless runs, and the full browser in its (new) headless mode
 * costs much more CPU per test (a third more in docs/orchestrated-runs.md, "Per-batch overhead";
 * with Debian's full Chromium, 4 batches of 6 s of waits took 18–19 s each on 2 cores). A pinned
 * full Chromium is closer to Playwright's revision than the npm shell, but that is worth less
 * than the CPU: `CHROMIUM_PATH` chooses it when wanted. The start-up line says which was passed over.
 *
 * `STEPDECK_SKIP_SYSTEM_BINARIES=1` skips the system steps (3 and `/usr/bin/ffmpeg`): it lets a
 * machine that has the Debian packages prove the npm path that a fresh machine takes.
 */

export type BrowserSource = 'CHROMIUM_PATH' | 'playwright' | 'system' | 'npm';

export interface ResolvedBrowser {
  executablePath: string;
  source: BrowserSource;
  /** e.g. `153.0.8010.0`, or null when the binary would not say. */
  version: string | null;
  /** The version Playwright is pinned to (`browsers.json`), e.g. `159.0.8154.6`. */
  pinnedVersion: string;
  /** Whether this is Playwright's own build of the pinned revision. */
  pinned: boolean;
  /** Whether it is a headless shell (unknown for `CHROMIUM_PATH`: false). */
  headlessShell: boolean;
  /** Why this one, for the start-up line: e.g. the full Chromium it was preferred over. */
  reason: string;
}

export type BrowserResolution = { ok: true; browser: ResolvedBrowser } | { ok: false; problem: string };

type Env = Record<string, string | undefined>;

const require = createRequire(import.meta.url);
const execFileAsync = promisify(execFile);
/** Where the system's Chromium packages put their binaries. */
const SYSTEM_BIN = '/usr/bin';
const SYSTEM_HEADLESS_SHELLS = ['chromium-headless-shell'];
const SYSTEM_FULL_CHROMIUMS = ['chromium', 'chromium-browser'];
const SYSTEM_FFMPEG = '/usr/bin/ffmpeg';

interface PinnedBrowser {
  name: string;
  revision: string;
  browserVersion?: string;
}

function pinnedBrowsers(): Map<string, PinnedBrowser> {
  const testDir = path.dirname(require.resolve('@playwright/test/package.json'));
  const core = path.dirname(require.resolve('playwright-core/package.json', { paths: [testDir] }));
  const json = JSON.parse(readFileSync(path.join(core, 'browsers.json'), 'utf8')) as {
    browsers: PinnedBrowser[];
  };
  return new Map(json.browsers.map((browser) => [browser.name, browser]));
}

function pinned(name: string): PinnedBrowser {
  const browser = pinnedBrowsers().get(name);
  if (!browser) throw new Error(`playwright-core/browsers.json names no ${name} revision`);
  return browser;
}

/** The ffmpeg revision directory Playwright expects, e.g. `ffmpeg-1013`. */
export function ffmpegDirName(): string {
  return `ffmpeg-${pinned('ffmpeg').revision}`;
}

function cacheHome(env: Env = process.env): string {
  return env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
}

/** Where the runner keeps browsers and unpacked binaries: `STEPDECK_CACHE_DIR`, else `~/.cache/stepdeck`. */
export function stepdeckCacheDir(env: Env = process.env): string {
  return path.resolve(env.STEPDECK_CACHE_DIR || path.join(cacheHome(env), 'stepdeck'));
}

/** The browsers directory handed to Playwright (`PLAYWRIGHT_BROWSERS_PATH`). */
export function defaultBrowsersPath(env: Env = process.env): string {
  return path.resolve(env.PLAYWRIGHT_BROWSERS_PATH || path.join(stepdeckCacheDir(env), 'ms-playwright'));
}

const skipSystem = (env: Env) => env.STEPDECK_SKIP_SYSTEM_BINARIES === '1';

/** Why no ffmpeg was found, naming the setting to change. */
export function ffmpegProblem(env: Env = process.env): string {
  return env.FFMPEG_PATH
    ? `video recording needs ffmpeg: FFMPEG_PATH points to ${env.FFMPEG_PATH}, which does not exist; or set use.video to "off"`
    : 'video recording needs ffmpeg: set FFMPEG_PATH, install the Debian package ffmpeg or reinstall with optional dependencies (@ffmpeg-installer/linux-x64), or set use.video to "off"';
}

/** The ffmpeg to link in for video, or null when there is none. */
export function findFfmpeg(env: Env = process.env): string | null {
  if (env.FFMPEG_PATH) return existsSync(env.FFMPEG_PATH) ? env.FFMPEG_PATH : null;
  if (!skipSystem(env) && existsSync(SYSTEM_FFMPEG)) return SYSTEM_FFMPEG;
  try {
    const shipped = path.join(
      path.dirname(require.resolve('@ffmpeg-installer/linux-x64/package.json')),
      'ffmpeg',
    );
    return existsSync(shipped) ? shipped : null;
  } catch {
    return null;
  }
}

/**
 * Prepares a Playwright browsers directory: Playwright's own downloaded browsers (if any) are
 * linked in, and `ffmpeg-<rev>/ffmpeg-linux` is Playwright's own ffmpeg or else a link to
 * `ffmpegPath`. Returns the ffmpeg that will be used, or null when there is none.
 */
export async function prepareBrowsersPath(
  browsersPath: string,
  ffmpegPath: string | null,
): Promise<string | null> {
  await fs.mkdir(browsersPath, { recursive: true });
  const registry = path.join(cacheHome(), 'ms-playwright');
  if (path.resolve(registry) !== path.resolve(browsersPath)) {
    const entries = await fs.readdir(registry).catch(() => [] as string[]);
    for (const entry of entries) {
      const link = path.join(browsersPath, entry);
      if (!existsSync(link)) await fs.symlink(path.join(registry, entry), link).catch(() => {});
    }
  }
  const target = path.join(browsersPath, ffmpegDirName(), 'ffmpeg-linux');
  const stat = await fs.lstat(target).catch(() => null);
  // A real file is Playwright's own download; a link is ours and follows the current choice.
  if (stat && !stat.isSymbolicLink()) return target;
  if (stat && ffmpegPath && (await fs.readlink(target)) === ffmpegPath && existsSync(target)) return target;
  if (!ffmpegPath || !existsSync(ffmpegPath)) return stat && existsSync(target) ? target : null;
  await fs.mkdir(path.dirname(target), { recursive: true });
  // Unique per call: the slots of one process prepare their batches at the same moment.
  const temporary = `${target}.${randomUUID()}`;
  await fs.symlink(ffmpegPath, temporary);
  await fs.rename(temporary, target);
  return target;
}

/** Playwright's own headless shell (or, `full`, its full Chromium) of the pinned revision, if installed. */
function playwrightChromium(browsersPath: string, kind: 'shell' | 'full'): string | null {
  const shellDir = `chromium_headless_shell-${pinned('chromium-headless-shell').revision}`;
  const fullDir = `chromium-${pinned('chromium').revision}`;
  const candidates =
    kind === 'shell'
      ? [
          path.join(shellDir, 'chrome-headless-shell-linux64', 'chrome-headless-shell'),
          path.join(shellDir, 'chrome-linux', 'headless_shell'),
        ]
      : [path.join(fullDir, 'chrome-linux64', 'chrome'), path.join(fullDir, 'chrome-linux', 'chrome')];
  for (const registry of [browsersPath, path.join(cacheHome(), 'ms-playwright')]) {
    for (const candidate of candidates) {
      const full = path.join(registry, candidate);
      if (existsSync(full)) return full;
    }
  }
  return null;
}

function systemChromium(systemBin: string, names: string[]): string | null {
  for (const name of names) {
    const candidate = path.join(systemBin, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

async function unpackBrotli(source: string, target: string): Promise<void> {
  await pipeline(
    createReadStream(source),
    createBrotliDecompress(),
    createWriteStream(target, { mode: 0o755 }),
  );
}

async function untarBrotli(source: string, cwd: string): Promise<void> {
  await pipeline(createReadStream(source), createBrotliDecompress(), tar.x({ cwd, preserveOwner: false }));
}

/**
 * Unpacks `@sparticuz/chromium` (brotli archives of a headless Chromium, its NSS libraries,
 * fonts and SwiftShader) once into the cache, with a launcher that points the binary at them.
 * Returns the launcher, or null when the optional package is not installed.
 */
export async function npmChromium(cacheDir: string): Promise<string | null> {
  let packageDir: string;
  try {
    // The package exports only its entry (`build/index.js`), not its package.json.
    packageDir = path.dirname(path.dirname(require.resolve('@sparticuz/chromium')));
  } catch {
    return null;
  }
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const target = path.join(cacheDir, `sparticuz-chromium-${version}`);
  const launcher = path.join(target, 'chromium-launcher');
  if (existsSync(launcher)) return launcher;
  // Unpacked beside the target then renamed, so a concurrent or interrupted unpack never
  // leaves a half-written browser behind.
  const partial = `${target}.partial-${process.pid}-${Date.now()}`;
  await fs.mkdir(partial, { recursive: true });
  try {
    const bin = path.join(packageDir, 'bin');
    await unpackBrotli(path.join(bin, 'chromium.br'), path.join(partial, 'chromium'));
    await untarBrotli(path.join(bin, 'al2023.tar.br'), partial);
    await untarBrotli(path.join(bin, 'swiftshader.tar.br'), partial);
    await untarBrotli(path.join(bin, 'fonts.tar.br'), partial);
    // The package's fonts.conf names Lambda's folders; this one names ours and the system's.
    await fs.writeFile(
      path.join(partial, 'fonts.conf'),
      [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        '<fontconfig>',
        `  <dir>${path.join(target, 'fonts')}</dir>`,
        '  <dir>/usr/share/fonts</dir>',
        `  <cachedir>${path.join(target, 'fonts-cache')}</cachedir>`,
        '</fontconfig>',
        '',
      ].join('\n'),
    );
    await fs.writeFile(
      path.join(partial, 'chromium-launcher'),
      [
        '#!/bin/sh',
        '# Written by Stepdeck: runs the Chromium of @sparticuz/chromium with its own libraries and fonts.',
        'here="$(dirname "$0")"',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
        'LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FONTCONFIG_PATH="$here" exec "$here/chromium" "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    await fs.rename(partial, target).catch(async (error: NodeJS.ErrnoException) => {
      // Another process finished first: keep its copy.
      if (!existsSync(launcher)) throw error;
    });
  } finally {
    await fs.rm(partial, { recursive: true, force: true });
  }
  return launcher;
}

const versions = new Map<string, Promise<string | null>>();

/** `<executable> --version`, asked once per binary and process (a run should not pay for it). */
function versionOf(executable: string): Promise<string | null> {
  let version = versions.get(executable);
  if (!version) {
    version = askVersion(executable);
    versions.set(executable, version);
  }
  return version;
}

async function askVersion(executable: string): Promise<string | null> {
  try {
    const { stdout } = await execFileAsync(executable, ['--version'], { timeout: 15_000 });
    return /(\d+\.\d+\.\d+\.\d+)/.exec(stdout)?.[1] ?? null;
  } catch {
    return null;
  }
}

export interface ResolveOptions {
  env?: Env;
  browsersPath?: string;
  cacheDir?: string;
  /** Where the system's packages put their binaries (`/usr/bin`); tests point it elsewhere. */
  systemBin?: string;
}

const LESS_CPU = 'less CPU per test';

/** The Chromium a run will launch, in the order documented at the top of this file. */
export async function resolveChromium(options: ResolveOptions = {}): Promise<BrowserResolution> {
  const env = options.env ?? process.env;
  const browsersPath = options.browsersPath ?? defaultBrowsersPath(env);
  const systemBin = skipSystem(env) ? null : (options.systemBin ?? SYSTEM_BIN);
  const pinnedVersion = pinned('chromium').browserVersion ?? 'unknown';
  const found = async (
    executablePath: string,
    source: BrowserSource,
    headlessShell: boolean,
    reason: string,
  ): Promise<BrowserResolution> => {
    const version = source === 'playwright' ? pinnedVersion : await versionOf(executablePath);
    const browser = { executablePath, source, version, pinnedVersion, pinned: source === 'playwright' };
    return { ok: true, browser: { ...browser, headlessShell, reason } };
  };
  if (env.CHROMIUM_PATH) {
    return existsSync(env.CHROMIUM_PATH)
      ? found(env.CHROMIUM_PATH, 'CHROMIUM_PATH', false, 'CHROMIUM_PATH names it')
      : {
          ok: false,
          problem: `Chromium is not installed: CHROMIUM_PATH points to ${env.CHROMIUM_PATH}, which does not exist`,
        };
  }
  const fullChromium = () =>
    playwrightChromium(browsersPath, 'full') ??
    (systemBin ? systemChromium(systemBin, SYSTEM_FULL_CHROMIUMS) : null);
  const shellReason = () => {
    const full = fullChromium();
    return full
      ? `headless shell preferred over the full Chromium at ${full}: ${LESS_CPU}`
      : 'headless shell';
  };
  const ownShell = playwrightChromium(browsersPath, 'shell');
  if (ownShell) return found(ownShell, 'playwright', true, shellReason());
  const systemShell = systemBin ? systemChromium(systemBin, SYSTEM_HEADLESS_SHELLS) : null;
  if (systemShell) return found(systemShell, 'system', true, shellReason());
  let unpackProblem: string | null = null;
  try {
    const shipped = await npmChromium(options.cacheDir ?? stepdeckCacheDir(env));
    if (shipped) return found(shipped, 'npm', true, shellReason());
  } catch (error) {
    unpackProblem = `Chromium could not be unpacked from @sparticuz/chromium: ${(error as Error).message}`;
  }
  const ownFull = playwrightChromium(browsersPath, 'full');
  const noShell = unpackProblem ?? 'no headless shell is installed';
  if (ownFull) return found(ownFull, 'playwright', false, `full Chromium: ${noShell}`);
  const systemFull = systemBin ? systemChromium(systemBin, SYSTEM_FULL_CHROMIUMS) : null;
  if (systemFull) return found(systemFull, 'system', false, `full Chromium: ${noShell}`);
  if (unpackProblem) return { ok: false, problem: unpackProblem };
  return {
    ok: false,
    problem:
      'Chromium is not installed: set CHROMIUM_PATH, run `npx playwright install chromium`, install the Debian package chromium-headless-shell, or reinstall with optional dependencies (`npm ci` installs @sparticuz/chromium)',
  };
}

const SOURCE_NAMES: Record<BrowserSource, string> = {
  CHROMIUM_PATH: 'CHROMIUM_PATH',
  playwright: "Playwright's own browser",
  system: 'the system Chromium',
  npm: 'the npm package @sparticuz/chromium',
};

export interface BrowserDescription {
  /** One line for the start-up log. */
  line: string;
  /** True when runs will not use Playwright's pinned build (log it as a warning). */
  warn: boolean;
  browser: ResolvedBrowser | null;
  problem: string | null;
}

/** What runs will launch, for the start-up log line and `/readyz`. */
export async function describeBrowser(options: ResolveOptions = {}): Promise<BrowserDescription> {
  const resolution = await resolveChromium(options);
  if (!resolution.ok)
    return { line: resolution.problem, warn: true, browser: null, problem: resolution.problem };
  const { browser } = resolution;
  const what = `Chromium ${browser.version ?? '(version unknown)'} from ${SOURCE_NAMES[browser.source]} (${browser.executablePath}; ${browser.reason})`;
  return browser.pinned
    ? { line: `runs use ${what}`, warn: false, browser, problem: null }
    : {
        line: `runs use ${what}, not Playwright's pinned Chromium ${browser.pinnedVersion}: run \`npx playwright install chromium\` for the exact revision`,
        warn: true,
        browser,
        problem: null,
      };
}

/**
 * Logs the start-up line naming the browser runs will use (a warning when it is not Playwright's
 * pinned build, or when there is none). Call without awaiting: a first start unpacks the npm
 * Chromium here, which warms the cache for the first run.
 */
export async function logBrowser(log: {
  info: (message: string) => void;
  warn: (message: string) => void;
}): Promise<BrowserDescription> {
  const description = await describeBrowser();
  (description.warn ? log.warn : log.info).call(log, description.line);
  return description;
}
