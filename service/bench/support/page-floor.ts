import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';

/**
 * The floor under every page-load figure on this machine: the same navigation (from
 * about:blank, `waitUntil: 'commit'`, then `whenShown`) to a static
 * page of one heading on loopback. It holds what no console code can remove: the browser
 * committing the navigation in a renderer, and Playwright noticing the element.
 *
 * Measured twice: plain, and with the response headers the console's `index.html` is served
 * with (`consoleUrl`). Those include `Cross-Origin-Opener-Policy: same-origin`, which makes
 * Chromium put the page in a new browsing context group, in a new renderer process, when it
 * is opened from a page without it (here about:blank; in real life a link on another site,
 * which changes process anyway). Reported next to the console's figures, in the same run.
 */
export async function staticPageFloors(
  page: Page,
  consoleUrl: string,
  rounds: number,
): Promise<{ plain: number; withConsoleHeaders: number }> {
  const consoleHeaders = await headersOf(consoleUrl);
  const server = http.createServer((request, response) => {
    const extra = request.url === '/with-console-headers' ? consoleHeaders : {};
    response.writeHead(200, { ...extra, 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Floor</title><h1 id="title">Floor</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return {
      plain: await medianLoad(page, `${base}/plain`, rounds),
      withConsoleHeaders: await medianLoad(page, `${base}/with-console-headers`, rounds),
    };
  } finally {
    server.close();
  }
}

/** The console's own response headers, but those describing the body. */
async function headersOf(url: string): Promise<Record<string, string>> {
  const response = await fetch(url);
  await response.arrayBuffer();
  const bodyHeaders = new Set([
    'content-length',
    'content-type',
    'content-encoding',
    'etag',
    'last-modified',
    'date',
  ]);
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!bodyHeaders.has(name) && !['connection', 'keep-alive', 'transfer-encoding'].includes(name))
      kept[name] = value;
  });
  return kept;
}

async function medianLoad(page: Page, url: string, rounds: number): Promise<number> {
  const timings: number[] = [];
  for (let round = 0; round < rounds + 2; round += 1) {
    await page.goto('about:blank');
    const start = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await whenShown(page, '#title', 'Floor');
    if (round >= 2) timings.push(performance.now() - start);
  }
  timings.sort((a, b) => a - b);
  return timings[Math.floor(timings.length / 2)] as number;
}

/**
 * Resolves in the animation frame in which an element matching `selector` whose text includes
 * `text` is visible, the frame that paints it. The page-load figures wait with this, not with
 * `locator.waitFor`: that polls at growing intervals (500 ms apart after the first few), which
 * added up to 420 ms of waiting-to-look to the tests tree's figure (measured 2026-11-24: rows
 * painted at 735 ms, seen at 1154 ms).
 */
export async function whenShown(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    ([selector, text]) =>
      Array.from(document.querySelectorAll(selector)).some(
        (element) => element.textContent?.includes(text) && element.checkVisibility(),
      ),
    [selector, text] as const,
    { polling: 'raf', timeout: 60_000 },
  );
}
