import fs from 'node:fs';
import path from 'node:path';
import { expect, type Response, test } from '@playwright/test';
import { signInFresh } from './fixtures.ts';
import { consoleDir } from './service.ts';

/**
 * What Chromium negotiates with the real service: the console's assets as the `.br` files the
 * build wrote (the bytes on the wire are exactly those files), API answers over the threshold
 * compressed on the fly, small ones as they are, and the console working on what it received.
 */
test.describe('compression negotiated by the browser', () => {
  test("the console's scripts and styles arrive as the build's brotli files, and the console runs on them", async ({
    page,
  }) => {
    const assets: Response[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/console/assets/')) assets.push(response);
    });
    await signInFresh(page);
    await page.waitForLoadState('load');
    const compressible = assets.filter((response) => /\.(?:js|css)$/.test(new URL(response.url()).pathname));
    expect(compressible.length).toBeGreaterThan(0);
    for (const response of compressible) {
      const name = path.basename(new URL(response.url()).pathname);
      const built = path.join(consoleDir, 'dist', 'assets', name);
      const headers = await response.allHeaders();
      expect(headers.vary, name).toMatch(/accept-encoding/i);
      if (fs.statSync(built).size < 1024) {
        // Too small to be worth compressing: the build wrote no .br for it.
        expect(headers['content-encoding'], name).toBeUndefined();
        continue;
      }
      expect(headers['content-encoding'], name).toBe('br');
      const { responseBodySize } = await response.request().sizes();
      expect(responseBodySize, name).toBe(fs.statSync(`${built}.br`).size);
    }
  });

  test('a large API answer is compressed, a small one is not', async ({ page }) => {
    await signInFresh(page);
    const [large] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === '/openapi.json'),
      page.evaluate(() => fetch('/openapi.json').then((response) => response.json())),
    ]);
    expect((await large.allHeaders())['content-encoding']).toBe('br');
    expect(JSON.parse(await large.text()).openapi).toMatch(/^3\./);

    const [small] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === '/healthz'),
      page.evaluate(() => fetch('/healthz').then((response) => response.json())),
    ]);
    expect((await small.allHeaders())['content-encoding']).toBeUndefined();
    expect(await small.json()).toEqual({ status: 'ok' });
  });
});
