import { expect, test } from '@playwright/test';
import { bootstrap, consoleFetch, expectAccessible, openAdminPage, signInFresh } from './fixtures.ts';

/**
 * How the administration pages show what went wrong: a list that cannot load shows its error
 * alone (no "Loading…", no empty table), and a form's errors are about what the form holds now.
 */
const memberEmail = `errors-member-${Date.now()}@example.test`;
const memberPassword = 'member-password-e2e-123';

const adminPath = (page: string) => `/console/projects/${bootstrap().projectId}/admin/${page}`;

test('a member opening the audit log is told who may read it, not refused after a load', async ({ page }) => {
  await signInFresh(page);
  expect(
    (
      await consoleFetch(page, 'POST', '/console/v1/users', {
        email: memberEmail,
        password: memberPassword,
        role: 'member',
      })
    ).status,
  ).toBe(201);
  await page.context().clearCookies();
  await signInFresh(page, memberEmail, memberPassword);
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/console/v1/audit-log')) asked.push(request.url());
  });
  await openAdminPage(page, 'Audit log');
  await expect(page.getByRole('note')).toHaveText('Only owners and admins can read the audit log.');
  await expect(page.getByRole('form', { name: 'Filter the audit log' })).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByText('Loading…')).toHaveCount(0);
  await expect(page.getByRole('table')).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Audit log pages' })).toHaveCount(0);
  expect(asked).toEqual([]);
  await expectAccessible(page);
});

test('every administration list that cannot load shows its error instead of an empty table', async ({
  page,
}) => {
  await signInFresh(page);
  // The lists' own requests fail; the pages' other requests (tags, presets, limits) still answer.
  await page.route(
    /\/console\/v1\/(api-keys|webhooks|schedules|projects\/[^/]+\/secrets|projects\/[^/]+\/presets|users|email-inboxes|audit-log|tags)(\?.*)?$/,
    (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({ status: 500, json: { message: 'List unavailable (injected by the test)' } })
        : route.fallback(),
  );
  for (const [path, heading] of [
    ['api-keys', 'API keys'],
    ['webhooks', 'Webhooks'],
    ['schedules', 'Schedules'],
    ['presets', 'Config presets'],
    ['users', 'Users and roles'],
    ['audit-log', 'Audit log'],
    ['secrets', 'Secrets'],
    ['tags', 'Tags'],
    ['email-inboxes', 'Email inboxes'],
  ] as const) {
    await page.goto(adminPath(path));
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'injected by the test' }).first()).toBeVisible();
    await expect(page.getByRole('table'), path).toHaveCount(0);
    await expect(page.getByText('Loading…'), path).toHaveCount(0);
  }
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});

test("a webhook form's errors are about what it holds now", async ({ page }) => {
  await signInFresh(page);
  await openAdminPage(page, 'Webhooks');
  const form = page.getByRole('form', { name: 'Create a webhook' });
  const url = form.getByLabel('Endpoint URL (https)');
  const refused = page.getByRole('alert').filter({ hasText: 'Not created' });
  // `.invalid` never resolves: the service refuses the URL.
  await url.fill('https://stepdeck-e2e.invalid/');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(refused).toBeVisible();
  // The refused URL stays in the field to be corrected; correcting it drops the old answer.
  await expect(url).toHaveValue('https://stepdeck-e2e.invalid/');
  await url.fill('https://other.stepdeck-e2e.invalid/');
  await expect(refused).toHaveCount(0);
  await form.getByLabel('Custom data (JSON, up to 4 KB)').fill('{not json');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('alert')).toHaveCount(1);
  await expect(refused).toHaveCount(0);
  // The client's own complaint goes too once the field it was about changes.
  await form.getByLabel('Custom data (JSON, up to 4 KB)').fill('');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await url.fill('https://stepdeck-e2e.invalid/');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(refused).toBeVisible();
  await url.fill('');
  await expect(refused).toHaveCount(0);
  await expectAccessible(page);
});

test('a disabled create button says why, to screen readers too', async ({ page }) => {
  await signInFresh(page);
  await openAdminPage(page, 'Webhooks');
  const form = page.getByRole('form', { name: 'Create a webhook' });
  const create = form.getByRole('button', { name: 'Create webhook' });
  await expect(create).toBeEnabled();
  await form.getByLabel('run.completed').uncheck();
  await form.getByLabel('run.failed').uncheck();
  await expect(create).toBeDisabled();
  await expect(create).toHaveAccessibleDescription('Choose at least one event.');
  await form.getByLabel('run.failed').check();
  await expect(create).toBeEnabled();
  await expect(create).toHaveAccessibleDescription('');

  await openAdminPage(page, 'API keys');
  const keyButton = page
    .getByRole('form', { name: 'Create an API key' })
    .getByRole('button', { name: 'Create key' });
  await expect(keyButton).toBeDisabled();
  await expect(keyButton).toHaveAccessibleDescription('Choose at least one scope.');
  await expectAccessible(page);
});
