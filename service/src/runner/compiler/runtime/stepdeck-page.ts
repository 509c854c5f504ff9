/**
 * Page scripts, history and patterns for `stepdeck-runtime.ts`, copied beside it into every
 * compiled project as `stepdeck-page.ts`. Like the runtime, it imports only
 * `@playwright/test` and `node:` modules, so an exported project runs unmodified.
 */
import vm from 'node:vm';
import type { Page } from '@playwright/test';

/**
 * The user's script as the source `page.evaluate` runs in the page: an expression
 * (`localStorage.length`, `await fetch(…)`, `() => document.title`, whose function is called) or
 * a function body with `return` (`const n = …; return n > 2;`). Which of the two is decided by
 * compiling it here, never running it: the runner's Node does not execute page scripts.
 */
export function pageScriptSource(script: string): string {
  const expression = `(async () => { const value = (${script}\n); return typeof value === 'function' ? await value() : value; })()`;
  try {
    new vm.Script(expression);
    return expression;
  } catch {
    return `(async () => {\n${script}\n})()`;
  }
}

/** Runs a page script; a script that throws fails with its own error, not a stack of ours. */
export async function evaluateInPage(page: Page, script: string): Promise<unknown> {
  const source = pageScriptSource(script);
  try {
    new vm.Script(source);
  } catch (error) {
    throw new Error(`the page script is not valid JavaScript: ${(error as Error).message}`);
  }
  try {
    return await page.evaluate(source);
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]?.replace(/^page\.evaluate:\s*/, '') ?? '';
    throw new Error(`the page script failed: ${message}`);
  }
}

/**
 * `page.goBack()` / `page.goForward()`, which do nothing when the tab has no such entry: here
 * that fails the step. The page's Navigation API says so where the browser has one (Chromium).
 */
export async function traverseHistory(page: Page, direction: 'back' | 'forward'): Promise<void> {
  const possible = await page
    .evaluate((back) => {
      const navigation = (globalThis as { navigation?: { canGoBack: boolean; canGoForward: boolean } })
        .navigation;
      return navigation ? (back ? navigation.canGoBack : navigation.canGoForward) : null;
    }, direction === 'back')
    .catch(() => null);
  if (possible === false)
    throw new Error(
      direction === 'back'
        ? 'goBack: this tab has no earlier page in its history'
        : 'goForward: this tab has no later page in its history',
    );
  if (direction === 'back') await page.goBack();
  else await page.goForward();
}

/** A user's regular expression, refused with a clear message when it does not compile. */
export function userPattern(source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw new Error(`"${source}" is not a valid regular expression: ${(error as Error).message}`);
  }
}

/** Each text as a pattern that matches any text containing it (for `toHaveText([...])`). */
export function containingPatterns(texts: string[]): RegExp[] {
  return texts.map((text) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
}
