import type { Page } from '@playwright/test';

/**
 * The floor under every page-load figure on this machine: the same navigation (from
 * about:blank, `waitUntil: 'commit'`, then waiting for an element to be visible) to a static
 * page of one heading, served on loopback. It holds what no console change can remove: the
 * browser committing the navigation in a renderer, and Playwright noticing the element.
 * Reported next to the console's figures, measured in the same run.
 */
export async function staticPageFloor(page: Page, url: string, rounds: number): Promise<number> {
  const timings: number[] = [];
  for (let round = 0; round < rounds + 2; round += 1) {
    await page.goto('about:blank');
    const start = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator('#title').waitFor({ state: 'visible' });
    if (round >= 2) timings.push(performance.now() - start);
  }
  timings.sort((a, b) => a - b);
  return timings[Math.floor(timings.length / 2)] as number;
}
