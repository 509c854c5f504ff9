import { expect, test } from '@playwright/test';
import {
  accountButton,
  createTest,
  expectAccessible,
  failingUiTest,
  runPath,
  signInFresh,
  startRun,
  uiRunConfig,
  waitForRun,
} from './fixtures.ts';

test.describe('header, recorded video and the dashboard time axis', () => {
  const suffix = Date.now().toString(36);
  let videoRun: string;

  test.beforeAll(async () => {
    const testId = await createTest(failingUiTest(`video ${suffix}`));
    const config = uiRunConfig();
    videoRun = await startRun(testId, { ...config, use: { ...config.use, video: 'on' } });
    await waitForRun(videoRun, ['failed', 'completed']);
  });

  test("shows the organization's name in the header", async ({ page }) => {
    await signInFresh(page);
    const banner = page.getByRole('banner');
    await expect(banner.getByTitle('Organization')).toHaveText('Default organization');
    await expect(banner.getByText('…', { exact: true })).toHaveCount(0);
  });

  test('fits the header on one line at 1280 px, administration behind one keyboard-operable menu', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInFresh(page);
    const banner = page.getByRole('banner');
    const brand = await banner.getByText('Stepdeck', { exact: true }).boundingBox();
    const signOut = await accountButton(page).boundingBox();
    // One line: the account menu sits on the brand's row, and the header is one control high.
    expect(
      Math.abs((signOut?.y ?? 0) + (signOut?.height ?? 0) / 2 - ((brand?.y ?? 0) + (brand?.height ?? 0) / 2)),
    ).toBeLessThan(4);
    expect((await banner.boundingBox())?.height).toBeLessThan(60);
    const menu = banner.getByRole('button', { name: 'Administration' });
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(banner.getByRole('link', { name: 'API keys' })).toBeHidden();
    // Keyboard: focus the button, open with Enter, Escape closes and gives focus back.
    await menu.focus();
    await page.keyboard.press('Enter');
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    for (const name of [
      'Email inboxes',
      'Projects',
      'API keys',
      'Webhooks',
      'Schedules',
      'Presets',
      'Users',
      'Audit log',
      'Secrets',
      'Tags',
      'Organization',
    ])
      await expect(banner.getByRole('link', { name, exact: true })).toBeVisible();
    await expectAccessible(page);
    await page.keyboard.press('Escape');
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(menu).toBeFocused();
    // Tab into the open list and follow a link with the keyboard: the page opens, the menu closes.
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await expect(banner.getByRole('link', { name: 'API keys' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    // 800 px: the header wraps into rows, but nothing overflows the window.
    await page.setViewportSize({ width: 800, height: 800 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await menu.click();
    const list = await banner.getByRole('link', { name: 'Organization' }).boundingBox();
    expect((list?.x ?? 0) + (list?.width ?? 0)).toBeLessThanOrEqual(800);
  });

  test('plays the video of a run that recorded one', async ({ page }) => {
    await signInFresh(page);
    await page.goto(runPath(videoRun));
    const card = page.getByTestId('test-result').first();
    await expect(card.getByRole('heading', { name: `video ${suffix}` })).toBeVisible();
    const video = card.getByLabel(`Video of video ${suffix}`);
    await expect(video).toBeVisible();
    await expect(video).toHaveAttribute('controls', '');
    // Chromium decoded the recording: it knows its size and length.
    await expect
      .poll(() =>
        video.evaluate((element) => {
          const media = element as HTMLVideoElement;
          return media.readyState >= 1 && media.videoWidth > 0 ? media.videoWidth : 0;
        }),
      )
      .toBeGreaterThan(0);
    const playing = await video.evaluate(async (element) => {
      const media = element as HTMLVideoElement;
      media.muted = true;
      await media.play();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { time: media.currentTime, error: media.error?.message ?? null };
    });
    expect(playing.error).toBeNull();
    expect(playing.time).toBeGreaterThan(0);
    // …and lists it for download with the run's artifacts.
    await expect(page.getByRole('link', { name: new RegExp(`^video ${suffix}: .*\\.webm$`) })).toBeVisible();
    await expectAccessible(page);
  });

  test("the runs-per-day chart's time axis spans the days of the runs, not years", async ({ page }) => {
    await signInFresh(page);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    const chart = page.getByRole('img', { name: /Runs per day/ });
    await expect(chart).toBeVisible();
    await expect(chart).toHaveAttribute('data-x-min', /^\d+$/);
    // The days the chart shows, from its text summary ("2026-11-23: 5 runs, 1 failed; …").
    const label = (await chart.getAttribute('aria-label')) ?? '';
    const days = [...label.matchAll(/(\d{4})-(\d{2})-(\d{2}):/g)].map((match) =>
      match.slice(1, 4).map(Number),
    );
    expect(days.length).toBeGreaterThan(0);
    const range = await chart.evaluate((element, shown) => {
      const midnight = ([year, month, day]: number[]) =>
        new Date(year as number, (month as number) - 1, day as number).getTime() / 1000;
      const sorted = shown.map(midnight).sort((a, b) => a - b);
      const firstDay = sorted[0] as number;
      const lastDay = sorted[sorted.length - 1] as number;
      const html = element as HTMLElement;
      return {
        min: Number(html.dataset.xMin),
        max: Number(html.dataset.xMax),
        firstDay,
        lastDay,
      };
    }, days);
    // From the first day's midnight to 24 hours after the last day's (local time).
    expect(range.min).toBe(range.firstDay);
    expect(range.max).toBe(range.lastDay + 86_400);
    expect(range.max - range.min).toBeLessThanOrEqual(days.length * 86_400 + 3600);
  });
});
