/**
 * Starts the Chromium of a live session the way a run's is started: the browser the runner
 * resolves (runner/browser.ts), the compiled config's flags, Chromium's sandbox when the runner
 * isolates runs, every connection through an egress proxy holding the runner's rules, and, in
 * the `uid` mode, a uid of its own from `RUNNER_UID_RANGE` with a HOME, TMPDIR and profile
 * that belong to that uid and are taken back, every process of the uid killed, when it closes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type BrowserContext, chromium } from '@playwright/test';
import { defaultBrowsersPath, resolveChromium } from '../../runner/browser.ts';
import { CHROMIUM_ARGS, EGRESS_CHROMIUM_ARGS } from '../../runner/compiler/constants.ts';
import { handRunFolders } from '../../runner/isolation.ts';
import { configureIsolation } from '../../runner/run-setup.ts';
import { releaseRunUid, takeRunUid } from '../../runner/run-uids.ts';
import { runTempRoot } from '../../runner/temp-root.ts';

export interface LaunchedBrowser {
  context: BrowserContext;
  /** Closes the browser and takes its folders (and uid) back; safe to call twice. */
  close(): Promise<void>;
}

export interface LaunchOptions {
  isolation: { isolation: 'on' | 'off'; uidRange: [number, number] } | undefined;
  /** The egress proxy's URL (`http://127.0.0.1:<port>`). */
  proxy: string;
  viewport: { width: number; height: number };
}

/** Thrown when no browser can run here; the message names why. */
export class NoBrowserError extends Error {}

export async function launchLiveBrowser(options: LaunchOptions): Promise<LaunchedBrowser> {
  const isolation = await configureIsolation(options.isolation);
  const resolved = await resolveChromium({ browsersPath: defaultBrowsersPath() });
  if (!resolved.ok) throw new NoBrowserError(resolved.problem);
  const uid = takeRunUid(isolation.uidRange);
  const root = await fs.mkdtemp(path.join(runTempRoot(), 'sd-live-'));
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  const profile = path.join(root, 'profile');
  // Outside the folder handed to the uid: only the service writes the launcher it runs.
  const launcherDir = await fs.mkdtemp(path.join(runTempRoot(), 'sd-launch-'));
  let executablePath = resolved.browser.executablePath;
  if (uid !== null) {
    executablePath = path.join(launcherDir, 'chromium');
    // setpriv drops to the run's uid before Chromium starts, keeping Playwright's pipe (fds 3, 4).
    await fs.writeFile(
      executablePath,
      `#!/bin/sh\nexec setpriv --reuid=${uid} --regid=${uid} --clear-groups -- ${shellQuote(resolved.browser.executablePath)} "$@"\n`,
      { mode: 0o700 },
    );
  }
  await Promise.all([home, tmp, profile].map((dir) => fs.mkdir(dir, { recursive: true })));
  const takeBack = await handRunFolders([root], {
    uid,
    release: async () => {
      if (uid !== null) await releaseRunUid(uid, []);
    },
  });
  const cleanUp = async () => {
    await takeBack();
    await fs.rm(root, { recursive: true, force: true }).catch(() => {});
    await fs.rm(launcherDir, { recursive: true, force: true }).catch(() => {});
  };
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      args: [...CHROMIUM_ARGS, ...EGRESS_CHROMIUM_ARGS],
      chromiumSandbox: isolation.sandbox,
      proxy: { server: options.proxy },
      headless: true,
      viewport: options.viewport,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      // The run's neutral environment: nothing of the service's but its path, language and zone.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        TMPDIR: tmp,
        ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
        ...(process.env.LANG ? { LANG: process.env.LANG } : {}),
      },
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    context,
    close() {
      closing ??= (async () => {
        await context.close().catch(() => {});
        await cleanUp();
      })();
      return closing;
    },
  };
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
