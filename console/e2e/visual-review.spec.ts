import { expect } from '@playwright/test';
import {
  bootstrap,
  createTest,
  expectAccessible,
  runPath,
  siteUrl,
  startRun,
  signedInTest as test,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

/**
 * The visual review page against real runs: a screenshot step's first run is `new`, approving it
 * makes it the baseline, and a run of another page is `changed` against it, shown zoomed to
 * fit, 100 % or 200 %.
 */
test.describe.configure({ mode: 'serial' });

const name = `Visual look ${Date.now()}`;
let testId = '';
// The step opens `?look` under the run's base URL: another base URL, another picture.
const runOn = async (path: string) => {
  const runId = await startRun(testId, {
    viewport: { width: 320, height: 200 },
    use: { baseURL: `${siteUrl()}${path}`, trace: 'off' },
  });
  await waitForRun(runId, ['completed', 'failed'], 120_000);
  return runId;
};
let firstRun = '';

test.beforeAll(async () => {
  testId = await createTest({
    name,
    steps: [
      { name: 'Open', action: { name: 'goto', url: '?look' } },
      { name: 'Whole page', action: { name: 'assertScreenshot' } },
    ],
  });
  firstRun = await runOn('/page');
});

test('a new screenshot is reviewed from the run page and approved with "Approve all"', async ({ page }) => {
  await page.goto(runPath(firstRun));
  await page.getByRole('link', { name: 'Review visual changes (1)' }).click();
  await expect(page.getByRole('heading', { name: 'Visual changes', level: 1 })).toBeVisible();
  const card = page.getByRole('article', { name: `${name} › Whole page` });
  await expect(card).toContainText('New');
  await expect(card).toContainText('Pending review');
  await expect(card).toContainText('No baseline yet');
  await expect(card.getByRole('img', { name: 'Actual' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'waiting for review' })).toHaveText(
    '1 new, 0 changed, 1 waiting for review',
  );
  await expectAccessible(page);

  await page.getByRole('button', { name: 'Approve all (1)' }).click();
  await expect(card).toContainText(`approved by ${bootstrap().adminEmail}`);
  await expect(card.getByRole('button', { name: `Approve ${name} › Whole page` })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Approve all/ })).toHaveCount(0);
});

test('a changed screenshot shows baseline, actual, diff and an overlay, zooms, and is rejected', async ({
  page,
}) => {
  const secondRun = await runOn('/greet');
  await page.goto(`${runPath(secondRun)}/visual`);
  const card = page.getByRole('article', { name: `${name} › Whole page` });
  await expect(card).toContainText('Changed');
  await expect(card).toContainText(/\d+ pixels differ/);
  for (const picture of ['Baseline', 'Actual', 'Difference'])
    await expect(card.getByRole('img', { name: picture, exact: true })).toBeVisible();
  const slider = card.getByRole('slider', { name: 'Overlay: actual over baseline' });
  await slider.fill('80');
  await expect(slider).toHaveAttribute('aria-valuetext', '80 % of the actual screenshot shown');
  await expect(card.getByRole('img', { name: 'Actual screenshot over the baseline' })).toHaveAttribute(
    'style',
    /inset\(0px 20% 0px 0px\)|inset\(0 20% 0 0\)/,
  );
  await expectAccessible(page);
  await page.screenshot({ path: test.info().outputPath('console-visual-review.png'), fullPage: true });

  // Zoom by keyboard: the radio group's arrow keys go from Fit to 100 % to 200 %.
  const zoom = card.getByRole('group', { name: 'Zoom' });
  const actual = card.getByRole('img', { name: 'Actual', exact: true });
  // The picture's own pixels shown across (its 1 px border aside).
  const widthOf = () => actual.evaluate((img) => img.clientWidth);
  await expect(zoom.getByRole('radio', { name: 'Fit' })).toBeChecked();
  const fitted = await widthOf();
  await zoom.getByRole('radio', { name: 'Fit' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(zoom.getByRole('radio', { name: '100 %' })).toBeChecked();
  await expect.poll(widthOf).toBe(320);
  await page.keyboard.press('ArrowRight');
  await expect(zoom.getByRole('radio', { name: '200 %' })).toBeChecked();
  await expect.poll(widthOf).toBe(640);
  expect(fitted).toBeLessThanOrEqual(640);
  for (const picture of ['Baseline', 'Actual', 'Difference', 'Overlay']) {
    const frame = card.getByRole('region', { name: `${name} › Whole page: ${picture} at 200 %` });
    await expect(frame).toBeVisible();
    await expect(frame).toHaveAttribute('tabindex', '0');
  }
  expect(
    await card
      .getByRole('img', { name: 'Actual screenshot over the baseline' })
      .evaluate((img) => img.clientWidth),
  ).toBe(640);
  // A zoomed picture's frame is reached by Tab and scrolls with the arrow keys.
  const frame = card.getByRole('region', { name: `${name} › Whole page: Baseline at 200 %` });
  await frame.focus();
  await expect(frame).toBeFocused();
  await expectAccessible(page);
  await zoom.getByRole('radio', { name: 'Fit' }).check();
  await expect(card.getByRole('region', { name: /at 200 %/ })).toHaveCount(0);

  await card.getByRole('button', { name: `Reject ${name} › Whole page` }).click();
  await expect(card).toContainText(`rejected by ${bootstrap().adminEmail}`);
  await expect(card.getByRole('button', { name: /^Reject / })).toHaveCount(0);
});

test('a run without screenshots links to no review, and its review page says so', async ({ page }) => {
  const plainTest = await createTest(waitingTest(`No screenshots ${Date.now()}`, 10));
  const runId = await startRun(plainTest);
  await waitForRun(runId, ['completed']);
  await page.goto(runPath(runId));
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: /Review visual changes/ })).toHaveCount(0);
  await page.goto(`${runPath(runId)}/visual`);
  await expect(page.getByText('No visual changes in this run.')).toBeVisible();
  await expectAccessible(page);
});
