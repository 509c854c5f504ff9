import { expect } from '@playwright/test';
import { editorPath } from './authoring-fixtures.ts';
import {
  apiCall,
  bootstrap,
  createTest,
  expectAccessible,
  openAdminPage,
  siteUrl,
  signedInTest as test,
} from './fixtures.ts';

/**
 * Environments in the console against the real service: the page (empty state, create and edit
 * with variable and write-only secret rows), then a run from the editor's Run dialog in one,
 * which the run page names, and the schedule and preset forms that pick one.
 */
const adminPath = (page: string) => `/console/projects/${bootstrap().projectId}/admin/${page}`;
const secret = `e2e-Secret-${Date.now().toString(36)}`;

test.describe.configure({ mode: 'serial' });

test('an owner creates and edits an environment; secret values are never shown', async ({ page }) => {
  await page.goto(adminPath('presets'));
  await openAdminPage(page, 'Environments');
  await expect(page.getByRole('heading', { name: 'Environments' })).toBeVisible();
  await expect(page.getByText('No environments yet.')).toBeVisible();
  await expectAccessible(page);

  await page.getByRole('button', { name: 'New environment' }).click();
  const form = page.getByRole('form', { name: 'Create an environment' });
  await form.getByLabel('Environment name').fill('staging');
  await form.getByLabel('Base URL').fill('https://wrong.example.test');
  await form.getByRole('button', { name: 'Add variable' }).click();
  await form.getByLabel('Variable 1 name').fill('TITLE');
  await form.getByLabel('Variable 1 value').fill('Hello runs');
  await form.getByRole('button', { name: 'Add secret' }).click();
  await form.getByLabel('Secret 1 name').fill('PASSWORD');
  await form.getByLabel('Secret 1 value').fill(secret);
  await expect(form.getByLabel('Secret 1 value')).toHaveAttribute('type', 'password');
  await expectAccessible(page);
  await form.getByRole('button', { name: 'Create environment' }).click();

  const row = page.getByRole('row').filter({ hasText: 'staging' });
  await expect(row).toContainText('https://wrong.example.test');
  await expect(row).toContainText('TITLE');
  await expect(row).toContainText('PASSWORD');
  expect(await page.content()).not.toContain(secret);

  // Edit: the base URL goes to the loopback site; the stored secret is listed by name only.
  await row.getByRole('button', { name: 'Edit staging' }).click();
  const edit = page.getByRole('form', { name: 'Edit environment staging' });
  await expect(edit.getByRole('list', { name: 'Stored secrets' })).toContainText('PASSWORD (value hidden)');
  await expect(edit.getByLabel('Variable 1 value')).toHaveValue('Hello runs');
  await edit.getByLabel('Base URL').fill(siteUrl());
  await expectAccessible(page);
  await edit.getByRole('button', { name: 'Save environment' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'staging' })).toContainText(siteUrl());

  // A refused name is said in the service's words.
  await page.getByRole('button', { name: 'New environment' }).click();
  const again = page.getByRole('form', { name: 'Create an environment' });
  await again.getByLabel('Environment name').fill('staging');
  await again.getByRole('button', { name: 'Create environment' }).click();
  await expect(page.getByRole('alert')).toContainText('An environment named "staging" already exists');

  const listed = await apiCall('GET', `/console/v1/projects/${bootstrap().projectId}/environments`);
  expect(listed.status).toBeGreaterThanOrEqual(400);
});

test('the Run dialog runs a test in an environment and the run page names it', async ({ page }) => {
  const testId = await createTest({
    name: `environment run ${Date.now().toString(36)}`,
    steps: [
      { name: 'open', action: { name: 'goto', url: '/page' } },
      { name: 'title', action: { name: 'assertText', selector: '#title', value: '{{env.TITLE}}' } },
    ],
  });
  await page.goto(editorPath(testId));
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Run this test' });
  await dialog.getByLabel('Environment').selectOption('staging');
  await expectAccessible(page);
  await dialog.getByRole('button', { name: 'Run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = new URL(page.url()).pathname.split('/').pop() as string;
  const facts = page.locator('dl').filter({ hasText: 'Environment' });
  await expect(facts.getByText('staging', { exact: true })).toBeVisible();
  await expect(page.locator('[data-status]').first()).toHaveText('completed', { timeout: 150_000 });
  const run = (await apiCall('GET', `/v1/test-runs/${runId}`)).json.data;
  expect(run.environment).toBe('staging');
  expect(run.config.use.baseURL).toBe(siteUrl());
  await expectAccessible(page);
});

test('the schedule and preset forms pick an environment', async ({ page }) => {
  await page.goto(adminPath('presets'));
  const presetForm = page.getByRole('form', { name: 'Create a preset' });
  await presetForm.getByLabel('Preset name').fill(`staging preset ${Date.now().toString(36)}`);
  await presetForm.getByLabel('Environment').selectOption('staging');
  await presetForm.getByRole('button', { name: 'Create preset' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'staging preset' })).toContainText('staging');
  await expectAccessible(page);

  await page.goto(adminPath('schedules'));
  const scheduleForm = page.getByRole('form', { name: 'Create a schedule' });
  await expect(scheduleForm.getByLabel('Environment')).toBeVisible();
  await expect(scheduleForm.getByLabel('Environment').locator('option')).toContainText([
    "The preset's (or none)",
    'staging',
  ]);
  await expectAccessible(page);
});
