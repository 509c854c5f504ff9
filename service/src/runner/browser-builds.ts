import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { defaultBrowsersPath } from './browser.ts';

const require = createRequire(import.meta.url);

/** The browsers a run may name besides Chromium, which the runner always finds (runner/browser.ts). */
export type PlaywrightOnlyBrowser = 'firefox' | 'webkit';

export interface BrowserAvailability {
  name: 'chromium' | PlaywrightOnlyBrowser;
  available: boolean;
  /** Why it cannot be chosen, with the step that installs it; null when available. */
  reason: string | null;
}

/** The step that installs a browser's Playwright build where the service runs. */
export const installStep = (browser: PlaywrightOnlyBrowser) => `npx playwright install ${browser}`;

type Launcher = { executablePath(): string };

/**
 * The folder and file of Playwright's pinned build of the browser (`firefox-1572/firefox/
 * firefox`), as its registry names it, relative to a browsers folder.
 */
function pinnedBuild(browser: PlaywrightOnlyBrowser): string | null {
  try {
    const testPackage = require.resolve('@playwright/test/package.json');
    const corePath = require.resolve('playwright-core', { paths: [path.dirname(testPackage)] });
    const core = require(corePath) as Record<PlaywrightOnlyBrowser, Launcher>;
    const executable = core[browser].executablePath();
    const parts = executable.split(path.sep);
    const at = parts.findIndex((part) => new RegExp(`^${browser}-\\d+$`).test(part));
    return at < 0 ? null : parts.slice(at).join(path.sep);
  } catch {
    return null;
  }
}

/** The browsers folders the runner reads builds from: its own, and Playwright's default. */
function browsersFolders(env: NodeJS.ProcessEnv): string[] {
  const cacheHome = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return [
    ...new Set([
      defaultBrowsersPath(env),
      path.join(cacheHome, 'ms-playwright'),
      ...(env.PLAYWRIGHT_BROWSERS_PATH ? [path.resolve(env.PLAYWRIGHT_BROWSERS_PATH)] : []),
    ]),
  ];
}

const cache = new Map<PlaywrightOnlyBrowser, { at: number; installed: boolean }>();
/** Installing a browser while the service runs is seen within this long. */
const recheckMs = 30_000;

/** Whether Playwright's pinned build of the browser is on disk where the runner looks. */
export function browserInstalled(
  browser: PlaywrightOnlyBrowser,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const cached = cache.get(browser);
  if (cached && Date.now() - cached.at < recheckMs) return cached.installed;
  const build = pinnedBuild(browser);
  const installed =
    build !== null && browsersFolders(env).some((folder) => existsSync(path.join(folder, build)));
  cache.set(browser, { at: Date.now(), installed });
  return installed;
}

/** Forgets what was found (tests that install or remove a build). */
export function forgetBrowserChecks(): void {
  cache.clear();
}

/** Every browser a run may name, and whether this service can run it now. */
export function browserAvailability(): BrowserAvailability[] {
  return [
    { name: 'chromium', available: true, reason: null },
    ...(['firefox', 'webkit'] as const).map((name) => {
      const available = browserInstalled(name);
      return {
        name,
        available,
        reason: available
          ? null
          : `Not installed on this service: run \`${installStep(name)}\` where it runs`,
      };
    }),
  ];
}
