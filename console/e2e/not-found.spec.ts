import { randomUUID } from 'node:crypto';
import { expect } from '@playwright/test';
import { bootstrap, expectAccessible, signedInTest as test } from './fixtures.ts';

/** Links to nothing (a project or a test that does not exist) answer a not-found page. */
test('an unknown project shows the not-found page, not its pages with stale switchers', async ({ page }) => {
  await page.goto(`/console/projects/${randomUUID()}/runs`);
  await expect(page.getByRole('heading', { level: 1, name: 'Project not found' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  const banner = page.getByRole('banner');
  // The switcher names no project rather than one that is not the one in the address.
  await expect(banner.getByLabel('Project')).toHaveValue('');
  await expect(banner.getByLabel('Branch')).toBeHidden();
  await expectAccessible(page);
  // A way back to a project that exists.
  await page.getByRole('link', { name: 'Back to the console' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/projects/${bootstrap().projectId}/runs$`));
  await expect(banner.getByLabel('Project')).toHaveValue(bootstrap().projectId);
});

test('an unknown or malformed test id in the editor shows "Test not found"', async ({ page }) => {
  const project = `/console/projects/${bootstrap().projectId}`;
  for (const testId of [randomUUID(), 'not-a-test-id']) {
    await page.goto(`${project}/tests/${testId}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Test not found' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
  }
  await expectAccessible(page);
});
