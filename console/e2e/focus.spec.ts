import { expect } from '@playwright/test';
import { bootstrap, expectAccessible, signedInTest as test } from './fixtures.ts';

/** Where the keyboard is: a skip link first, and never dropped to <body> by a closing dialog. */
test('the first Tab reaches "Skip to main content", which moves focus to the page', async ({ page }) => {
  await page.goto(`/console/projects/${bootstrap().projectId}/runs`);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to main content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  // The next Tab goes into the page, past the header.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
  await expectAccessible(page);
});

test('after "New test" is submitted with Enter, the new test opens in the editor', async ({ page }) => {
  await page.goto(`/console/projects/${bootstrap().projectId}/tests`);
  await page.getByRole('button', { name: 'New test' }).click();
  const dialog = page.getByRole('dialog', { name: 'New test' });
  const name = `focus ${Date.now().toString(36)}`;
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Name').press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: `Edit ${name}` })).toBeVisible();
  await expect(page).toHaveURL(/\/tests\/[0-9a-f-]{36}$/);
  await expect(page.getByText('No steps yet')).toBeVisible();

  await page.goto(`/console/projects/${bootstrap().projectId}/tests`);
  // Cancelled with Escape, a dialog hands focus back to the button that opened it.
  await page.getByRole('button', { name: 'New directory' }).click();
  await page.getByRole('dialog', { name: 'New directory' }).getByLabel('Name').press('Escape');
  await expect(page.getByRole('button', { name: 'New directory' })).toBeFocused();
});
