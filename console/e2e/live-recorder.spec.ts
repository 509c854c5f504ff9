import { expect, type Locator, type Page } from '@playwright/test';
import { editorPath, stepsList, testDetail } from './authoring-fixtures.ts';
import { createTest, expectAccessible, siteUrl, signedInTest as test } from './fixtures.ts';

/**
 * Recording in the live browser: Playwright's recorder in the service's Chromium, driven only
 * through the streamed screen (clicks on it and typing into it, as a person would), its steps
 * appearing in the editor as they come; saved, the test runs and passes.
 */

/** A point of the page (CSS pixels of the 1280×720 viewport) on the scaled screen. */
async function screenPoint(screen: Locator, x: number, y: number) {
  const box = await screen.getByRole('img').boundingBox();
  if (!box) throw new Error('the screen has no box');
  return { x: box.x + (x * box.width) / 1280, y: box.y + (y * box.height) / 720 };
}
async function clickAt(page: Page, screen: Locator, x: number, y: number) {
  const point = await screenPoint(screen, x, y);
  await page.mouse.click(point.x, point.y);
}
async function moveTo(page: Page, screen: Locator, x: number, y: number) {
  const point = await screenPoint(screen, x, y);
  await page.mouse.move(point.x, point.y);
}

type Box = { x: number; y: number; width: number; height: number };

/**
 * Pixels of the screen's current frame in a box of the page (CSS pixels): how many are dark
 * (text, icons), and how many have the light blue of the recorder's highlight.
 */
function pixels(screen: Locator, box: Box): Promise<{ dark: number; highlight: number }> {
  return screen.getByRole('img').evaluate((element, area) => {
    const image = element as HTMLImageElement;
    const counts = { dark: 0, highlight: 0 };
    if (!image.complete || image.naturalWidth === 0) return counts;
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext('2d');
    if (!context) return counts;
    context.drawImage(image, 0, 0);
    const scale = image.naturalWidth / 1280;
    const { data } = context.getImageData(
      area.x * scale,
      area.y * scale,
      area.width * scale,
      area.height * scale,
    );
    for (let at = 0; at < data.length; at += 4) {
      const [red, green, blue] = [data[at] ?? 255, data[at + 1] ?? 255, data[at + 2] ?? 255];
      if (red + green + blue < 400) counts.dark++;
      if (blue - red > 25) counts.highlight++;
    }
    return counts;
  }, box);
}
/** Whether the frame shows the recorder's toolbar (its icons, at the top from the middle on) and `content`. */
async function drawnWithToolbar(screen: Locator, content: Box) {
  const toolbar = await pixels(screen, { x: 645, y: 6, width: 210, height: 20 });
  return toolbar.dark > 40 && (await pixels(screen, content)).dark > 40;
}
const userField: Box = { x: 120, y: 120, width: 200, height: 30 };
const welcomeHeading: Box = { x: 20, y: 300, width: 220, height: 35 };

test.describe('live browser recording', () => {
  test('records a sign-in by clicking and typing in the screen, shows the steps as they come, saves and the test passes', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const login = `${siteUrl()}/login`;
    const testId = await createTest({
      name: `recorded ${Date.now().toString(36)}`,
      steps: [],
      config: { use: { baseURL: login } },
    });
    await page.goto(editorPath(testId));
    await page.getByRole('button', { name: 'Open live browser' }).click();
    const panel = page.getByRole('region', { name: 'Live browser' });
    const screen = panel.getByRole('application', { name: 'Live browser showing Sign in' });
    await expect(screen).toBeVisible({ timeout: 60_000 });
    const status = panel.locator('p.notice');

    const record = panel.getByRole('button', { name: 'Record', exact: true });
    await expect(record).toHaveAttribute('aria-pressed', 'false');
    await record.click();
    const stop = panel.getByRole('button', { name: 'Stop recording' });
    await expect(stop).toHaveAttribute('aria-pressed', 'true');
    // The recording starts on the page shown, and the step is in the editor at once.
    await expect(status).toHaveText('Recording: 1 step added');
    await expect(stepsList(page).getByRole('button', { name: `1. Go to ${login} goto` })).toBeVisible();

    // The recorder shows its toolbar in the page once it records.
    await expect.poll(() => drawnWithToolbar(screen, userField), { timeout: 20_000 }).toBe(true);
    await clickAt(page, screen, 220, 135);
    await page.keyboard.type('ada');
    await expect(
      stepsList(page).getByRole('button', { name: /^3\. Fill getByRole\('textbox', \{ name: 'User' \}\)/ }),
    ).toBeVisible();
    await clickAt(page, screen, 220, 195);
    await page.keyboard.type('secret');
    await clickAt(page, screen, 180, 260);
    const welcome = panel.getByRole('application', { name: 'Live browser showing Welcome' });
    await expect(welcome).toBeVisible({ timeout: 30_000 });
    await expect(status).toHaveText('Recording: 6 steps added');

    // The recorder's own toolbar, drawn in the new page: "Assert visibility", then the heading.
    await expect.poll(() => drawnWithToolbar(welcome, welcomeHeading), { timeout: 20_000 }).toBe(true);
    await clickAt(page, welcome, 744, 16);
    // Pointing at the heading until the recorder highlights it, then clicking it.
    let nudge = 0;
    await expect
      .poll(
        async () => {
          await moveTo(page, welcome, 100 + (nudge++ % 2), 315);
          return (await pixels(welcome, welcomeHeading)).highlight > 200;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await clickAt(page, welcome, 100, 315);
    await expect(status).toHaveText('Recording: 7 steps added');
    await expect(
      stepsList(page).getByRole('button', {
        name: "7. Expect visible getByRole('heading', { name: 'Welcome ada' }) assertVisible",
      }),
    ).toHaveAttribute('aria-current', 'true');
    await expectAccessible(page, '.live-browser');

    await stop.click();
    await expect(record).toHaveAttribute('aria-pressed', 'false');
    await expect(status).toHaveText('Recording stopped: 7 steps added');
    await expect(page.getByText('Unsaved changes')).toBeVisible();
    await expectAccessible(page, '.live-browser');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('All changes saved')).toBeVisible();
    const saved = (await testDetail(testId)).steps.map((step: { action: unknown }) => step.action);
    expect(saved).toEqual([
      { name: 'goto', url: login },
      { name: 'click', selector: 'internal:role=textbox[name="User"i]' },
      { name: 'fill', selector: 'internal:role=textbox[name="User"i]', value: 'ada' },
      { name: 'click', selector: 'internal:role=textbox[name="Password"i]' },
      { name: 'fill', selector: 'internal:role=textbox[name="Password"i]', value: 'secret' },
      { name: 'click', selector: 'internal:role=button[name="Sign in"i]' },
      { name: 'assertVisible', selector: 'internal:role=heading[name="Welcome ada"i]' },
    ]);

    await panel.getByRole('button', { name: 'Close live browser' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('dialog', { name: 'Run this test' }).getByRole('button', { name: 'Run' }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('completed', {
      timeout: 150_000,
    });
    await expect(page.getByText('1 passed, 0 failed, 0 skipped of 1')).toBeVisible();
  });
});
