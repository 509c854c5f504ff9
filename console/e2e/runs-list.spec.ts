import { expect, test } from '@playwright/test';
import {
  createTest,
  expectAccessible,
  failingUiTest,
  signInFresh,
  startRun,
  uiRunConfig,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

test.describe('runs list and dashboard', () => {
  const suffix = Date.now().toString(36);
  let passedRun: string;
  let failedRun: string;
  let failingTestId: string;

  test.beforeAll(async () => {
    passedRun = await startRun(await createTest(waitingTest(`list pass ${suffix}`, 10)));
    failingTestId = await createTest(failingUiTest(`list fail ${suffix}`));
    failedRun = await startRun(failingTestId, uiRunConfig());
    await waitForRun(passedRun, ['completed']);
    await waitForRun(failedRun, ['failed']);
  });

  test('keeps a name typed before the filter lists arrived', async ({ page }) => {
    // The tests' and schedules' lists are held back until the name is typed: their options
    // arriving must not re-create the form (and empty the name) under the user's hands.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/v1\/(tests|schedules)\?/, async (route) => {
      await held;
      await route.continue();
    });
    await signInFresh(page);
    const name = page.getByLabel('Name', { exact: true });
    await name.fill(`list pass ${suffix}`);
    const testOptions = page.getByLabel('Test or directory', { exact: true }).getByRole('option');
    await expect(testOptions).toHaveCount(1);
    release();
    await expect(testOptions.filter({ hasText: `list pass ${suffix}` })).toHaveCount(1);
    await expect(name).toHaveValue(`list pass ${suffix}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/name=list/);
    await expect(page.locator('table.runs tbody tr')).toHaveCount(1);
  });

  test('filters by status, name and test, and links to each run', async ({ page }) => {
    await signInFresh(page);
    const rows = page.locator('table.runs tbody tr');
    await expect(page.getByRole('link', { name: `list pass ${suffix}` })).toBeVisible();
    await expectAccessible(page);

    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/status=failed/);
    await expect(page.getByRole('link', { name: `list fail ${suffix}` })).toBeVisible();
    await expect(page.getByRole('link', { name: `list pass ${suffix}` })).toHaveCount(0);
    for (const badge of await rows.locator('[data-status]').all()) await expect(badge).toHaveText('failed');

    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByLabel('Name', { exact: true }).fill(`list pass ${suffix}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(rows).toHaveCount(1);
    await expect(page.getByRole('link', { name: `list pass ${suffix}` })).toBeVisible();

    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByLabel('Test or directory', { exact: true }).selectOption(failingTestId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(rows).toHaveCount(1);
    await page.getByRole('link', { name: `list fail ${suffix}` }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${failedRun}$`));

    // A date range before any run: nothing listed.
    await page.goBack();
    await page.getByLabel('Test or directory', { exact: true }).selectOption('');
    await page.getByLabel('From date', { exact: true }).fill('2001-01-01');
    await page.getByLabel('To date', { exact: true }).fill('2001-01-02');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByRole('status')).toHaveText('No runs match these filters. Show all runs');
    await expect(page.locator('table.runs')).toHaveCount(0);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Show all runs' }).click();
    await expect(page.getByRole('link', { name: `list pass ${suffix}` })).toBeVisible();
    await expect(page.getByLabel('From date', { exact: true })).toHaveValue('');
  });

  test('shows totals, charts and the most failing and slowest tests', async ({ page }) => {
    await signInFresh(page);
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    await expect(page.getByText('Success rate')).toBeVisible();
    await expect(page.getByRole('img', { name: /Runs per day/ })).toBeVisible();
    await expect(page.locator('canvas').first()).toBeVisible();
    const failing = page.getByRole('region', { name: /Most failing tests/ });
    await expect(failing.getByRole('cell', { name: `list fail ${suffix}` })).toBeVisible();
    await expect(page.getByRole('region', { name: /Slowest tests/ }).getByRole('row')).not.toHaveCount(0);
    await expectAccessible(page);
    await page.screenshot({ path: '../docs/console-dashboard.png', fullPage: true });
  });
});
