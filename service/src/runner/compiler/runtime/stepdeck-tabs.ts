/**
 * Tabs, popups and frames for `stepdeck-runtime.ts`, copied beside it into every compiled
 * project as `stepdeck-tabs.ts`. Like the runtime, it imports only `@playwright/test`, so an
 * exported project runs unmodified.
 *
 * The compiled test keeps its current page in a variable (`let page`): `waitForPopup`,
 * `switchTab` and `closeTab` return the page later steps act on.
 */
import type { BrowserContext, FrameLocator, Locator, Page } from '@playwright/test';

export type PopupTrigger = 'click' | 'dblclick' | 'press';

export interface PopupOptions {
  /** The step's selector as written, for the failure text. */
  selector: string;
  action?: PopupTrigger;
  key?: string;
  /** How long the new page may take to open, ms. */
  timeout: number;
}

/** Which tab `switchTab` looks for: exactly one of these. */
export interface TabQuery {
  index?: number;
  url?: string;
  title?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const triggerWords: Record<PopupTrigger, string> = {
  click: 'clicking',
  dblclick: 'double-clicking',
  press: 'pressing',
};

/**
 * Acts on `target` and waits for the page it opens (a `target=_blank` link, `window.open`):
 * the wait starts before the action, as Playwright's `Promise.all` pattern does, so a popup
 * that opens at once is not missed. The new page is returned once its DOM is loaded.
 */
export async function waitForPopup(page: Page, target: Locator, options: PopupOptions): Promise<Page> {
  const action = options.action ?? 'click';
  // Settled either way: when the action itself fails, its error is the step's, not a timeout.
  const opened = page
    .context()
    .waitForEvent('page', { timeout: options.timeout })
    .catch(() => null);
  if (action === 'press') await target.press(options.key ?? 'Enter');
  else if (action === 'dblclick') await target.dblclick();
  else await target.click();
  const popup = await opened;
  if (!popup) {
    const how = action === 'press' ? `pressing ${options.key ?? 'Enter'} on` : triggerWords[action];
    throw new Error(
      `no new tab or popup opened after ${how} ${options.selector} within ${options.timeout} ms`,
    );
  }
  await popup.waitForLoadState('domcontentloaded');
  await popup.bringToFront();
  return popup;
}

/** `/source/flags` is a regular expression; anything else is a substring. */
function textMatcher(wanted: string): (value: string) => boolean {
  const pattern = /^\/(.*)\/([a-z]*)$/s.exec(wanted);
  if (!pattern) return (value) => value.includes(wanted);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern[1] ?? '', pattern[2]);
  } catch (error) {
    throw new Error(`"${wanted}" is not a valid regular expression: ${(error as Error).message}`);
  }
  return (value) => regex.test(value);
}

async function titleOf(page: Page): Promise<string> {
  // A page in the middle of a navigation has no title to give yet.
  return page.title().catch(() => '');
}

/** The open tabs as a failure lists them: `1. http://…/help "Help", 2. …`. */
export async function describeTabs(context: BrowserContext): Promise<string> {
  const pages = context.pages();
  const lines = await Promise.all(
    pages.map(async (page, index) => `${index + 1}. ${page.url()} ${JSON.stringify(await titleOf(page))}`),
  );
  return lines.join(', ');
}

async function findTab(context: BrowserContext, query: TabQuery): Promise<Page | undefined> {
  const pages = context.pages();
  if (query.index !== undefined) return pages[query.index];
  if (query.url !== undefined) {
    const matches = textMatcher(query.url);
    return pages.find((page) => matches(page.url()));
  }
  if (query.title !== undefined) {
    const matches = textMatcher(query.title);
    for (const page of pages) if (matches(await titleOf(page))) return page;
  }
  return undefined;
}

/**
 * The tab matching `query` (index in opening order, URL or title, each a substring or a
 * `/regex/`), waited for up to `timeout` ms: a tab may still be opening or loading.
 */
export async function switchTab(context: BrowserContext, query: TabQuery, timeout: number): Promise<Page> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = await findTab(context, query);
    if (found) {
      await found.bringToFront();
      return found;
    }
    if (Date.now() >= deadline) break;
    await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
  }
  const wanted =
    query.index !== undefined
      ? `has index ${query.index} (0 is the first)`
      : query.url !== undefined
        ? `matches url ${JSON.stringify(query.url)}`
        : `matches title ${JSON.stringify(query.title)}`;
  throw new Error(`no tab ${wanted}; open tabs: ${await describeTabs(context)}`);
}

/**
 * Closes the current tab, or the one at `index`; returns the page later steps act on: the
 * last tab still open when the current one closed, else the current one.
 */
export async function closeTab(context: BrowserContext, current: Page, index?: number): Promise<Page> {
  const pages = context.pages();
  const target = index === undefined ? current : pages[index];
  if (!target)
    throw new Error(`no tab has index ${index} (0 is the first); open tabs: ${await describeTabs(context)}`);
  if (pages.length <= 1) throw new Error('cannot close the only open tab');
  await target.close();
  if (target !== current) return current;
  const remaining = context.pages();
  const next = remaining[remaining.length - 1];
  if (!next) throw new Error('cannot close the only open tab');
  await next.bringToFront();
  return next;
}

/** The scope a step's selector is looked up in: the page, or the `<iframe>`s it names, outer first. */
export function frameScope(page: Page, frames: string[]): Page | FrameLocator {
  let scope: Page | FrameLocator = page;
  for (const frame of frames) scope = scope.locator(frame).contentFrame();
  return scope;
}
