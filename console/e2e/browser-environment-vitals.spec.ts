import { expect } from '@playwright/test';
import { editorPath } from './authoring-fixtures.ts';
import {
  createTest,
  expectAccessible,
  runPath,
  startRun,
  signedInTest as test,
  uiRunConfig,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

/**
 * Two parts of the console the step vocabulary added: the editor's Browser environment fields
 * (a device, a time zone the contract refuses, secret-only credentials) and the run page's Web
 * Vitals table of a test that measured its page.
 */
test('the Browser environment fields take a device and name a time zone the service refuses', async ({
  page,
}) => {
  const testId = await createTest(waitingTest(`environment ${Date.now().toString(36)}`, 10));
  await page.goto(editorPath(testId));
  const panel = page.locator('details.run-config');
  await panel.getByText('Run configuration').click();
  const environment = panel.getByRole('group', { name: 'Browser environment' });
  await expect(environment).toBeVisible();
  await environment.getByLabel('Device').selectOption('Pixel 7');
  await environment.getByLabel('Colour scheme').selectOption('dark');
  await environment.getByLabel('Time zone').fill('Mars/Olympus_Mons');
  await expect(environment.locator('.field-error')).toContainText('Mars/Olympus_Mons');
  await expect(environment.getByLabel('Time zone')).toHaveAttribute('aria-invalid', 'true');
  await environment.getByLabel('Time zone').fill('Europe/Berlin');
  await expect(environment.locator('.field-error')).toHaveCount(0);
  await environment.screenshot({ path: 'test-results/screens/browser-environment.png' });
  await expectAccessible(page);
});

test('the run page shows the Web Vitals a test measured, one row per step', async ({ page }) => {
  const runId = await startRun(
    await createTest({
      name: `vitals ${Date.now().toString(36)}`,
      steps: [
        { name: 'open the page', action: { name: 'goto', url: '/page' } },
        { name: 'measure the page', action: { name: 'measureVitals', label: 'Page' } },
      ],
    }),
    uiRunConfig(),
  );
  await waitForRun(runId, ['completed', 'failed']);
  await page.goto(runPath(runId));
  await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('completed');
  const table = page.getByRole('table', { name: /^Web Vitals of vitals / });
  await expect(table).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'LCP' })).toBeVisible();
  // The step's label names the row, with the address it measured.
  const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Page http/ }) });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole('cell').first()).toHaveText(/^\d+ ms$/);
  await table.screenshot({ path: 'test-results/screens/vitals-table.png' });
  await expectAccessible(page);
});
