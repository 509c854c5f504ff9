import fs from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { expectAccessible, signInFresh } from './fixtures.ts';

/**
 * Every console page at 1280 px (and the header at 800 px): nothing overflows the window, the
 * header stays on one line, and each page is saved under test-results/screens/ for review.
 */
const screens = 'test-results/screens';

async function check(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  fs.mkdirSync(screens, { recursive: true });
  await page.screenshot({ path: `${screens}/${name}.png`, fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name}: wider than the window`).toBeLessThanOrEqual(0);
}

test('header on one line', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInFresh(page);
  await check(page, 'runs');
  await expectAccessible(page);
});
