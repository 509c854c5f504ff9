import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * Playwright's codegen recorder, driven through the user's own Playwright: the CLI bundle does
 * not carry playwright-core (its recorder serves its UI from files of its own package and
 * launches browsers it installs), so `stepdeck record` loads `playwright-core`, `playwright` or
 * `@playwright/test` from the current folder, or else from beside the CLI.
 */

/** The parts of Playwright's API the session uses (typed here: the package is not a dependency). */
export interface RecorderPage {
  goto(url: string): Promise<unknown>;
  close(): Promise<void>;
  on(event: 'close', listener: () => void): unknown;
}
interface RecorderContext {
  newPage(): Promise<RecorderPage>;
  pages(): RecorderPage[];
  on(event: 'page', listener: (page: RecorderPage) => void): unknown;
  close(): Promise<void>;
  // Private, stable across 1.5x: codegen's own entry point (`playwright codegen` calls it).
  _showRecorder?: (params: Record<string, unknown>) => Promise<void>;
  _enableRecorder?: (params: Record<string, unknown>) => Promise<void>;
}
interface RecorderBrowser {
  newContext(): Promise<RecorderContext>;
  close(): Promise<void>;
  on(event: 'disconnected', listener: () => void): unknown;
}
interface PlaywrightModule {
  chromium: { launch(options: Record<string, unknown>): Promise<RecorderBrowser> };
}

export const missingPlaywright =
  'Playwright is not installed here: run `npm install --save-dev playwright`, then `npx playwright install chromium`';

/** Loads the user's Playwright; the one-line error above when there is none. */
export function loadPlaywright(from: string[] = [process.cwd(), path.dirname(process.argv[1] ?? '.')]): {
  playwright: PlaywrightModule;
  resolved: string;
} {
  for (const base of from) {
    const require = createRequire(path.join(path.resolve(base), 'noop.js'));
    for (const name of ['playwright-core', 'playwright', '@playwright/test']) {
      let resolved: string;
      try {
        resolved = require.resolve(name);
      } catch {
        continue;
      }
      const playwright = require(resolved) as Partial<PlaywrightModule>;
      if (playwright.chromium) return { playwright: playwright as PlaywrightModule, resolved };
    }
  }
  throw new Error(missingPlaywright);
}

export interface RecordOptions {
  url: string;
  /** A Chromium to use instead of Playwright's own download. */
  executablePath?: string | undefined;
  /** Tests only: a browser without a window (the recorder still records what `drive` does). */
  headless?: boolean;
  args?: string[];
  /** Tests only: acts on the page as a user would, then closes it. */
  drive?: (page: RecorderPage) => Promise<void>;
  log?: (line: string) => void;
}

/**
 * Opens `url` in a browser with the codegen recorder (its inspector window shows the code as
 * you go) and resolves with the recorder's JSONL once the last tab or the browser is closed.
 */
export async function recordSession(options: RecordOptions, playwright?: PlaywrightModule): Promise<string> {
  const { chromium } = playwright ?? loadPlaywright().playwright;
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-record-'));
  const outputFile = path.join(outputDir, 'recording.jsonl');
  const browser = await chromium.launch({
    headless: options.headless ?? false,
    ...(options.executablePath ? { executablePath: options.executablePath } : {}),
    ...(options.args ? { args: options.args } : {}),
    // Ctrl-C ends the command (nothing saved); Playwright must not close the browser first.
    handleSIGINT: false,
  });
  let onInterrupt: (() => void) | undefined;
  try {
    const context = await browser.newContext();
    let cancelled = false;
    const finished = new Promise<void>((resolve) => {
      // Ctrl-C: close the browser and save nothing (closing it is how a recording is kept).
      onInterrupt = () => {
        cancelled = true;
        resolve();
      };
      process.once('SIGINT', onInterrupt);
      browser.on('disconnected', resolve);
      context.on('page', (page) =>
        page.on('close', () => {
          if (context.pages().length === 0) resolve();
        }),
      );
    });
    const show = context._showRecorder ?? context._enableRecorder;
    if (!show)
      throw new Error('this Playwright has no codegen recorder API: install playwright 1.50 or newer');
    // The recorder writes all it recorded so far to outputFile, in its JSONL language.
    await show.call(context, { language: 'jsonl', mode: 'recording', outputFile, handleSIGINT: false });
    const page = await context.newPage();
    await page.goto(options.url);
    options.log?.('Recording: act in the browser, then close it to save the steps.');
    if (options.drive) await options.drive(page);
    await finished;
    if (cancelled) throw new Error('recording cancelled (Ctrl-C): nothing saved');
    // Closing the context flushes the recorder's output file.
    await context.close().catch(() => {});
    return fs.existsSync(outputFile) ? fs.readFileSync(outputFile, 'utf8') : '';
  } finally {
    if (onInterrupt) process.off('SIGINT', onInterrupt);
    await browser.close().catch(() => {});
    fs.rmSync(outputDir, { recursive: true, force: true });
  }
}
