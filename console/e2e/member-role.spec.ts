import { expect, type Page, test } from '@playwright/test';
import { consoleCall, createSchedule } from './authoring-fixtures.ts';
import { bootstrap, createTest, expectAccessible, serviceUrl, signInFresh, waitingTest } from './fixtures.ts';

/**
 * The administration pages show each role only the changes the service lets it make (the
 * console's src/lib/permissions.ts mirrors the service's route rules): a member reads every
 * list and gets a note instead of the forms and buttons it would only get a 403 from; an admin
 * manages users but sees roles, which only owners change, as text.
 */
const suffix = Date.now().toString(36);
const memberEmail = `role-member-${suffix}@example.test`;
const adminEmail = `role-admin-${suffix}@example.test`;
const password = 'role-password-e2e-123';
const scheduleName = `role schedule ${suffix}`;
const tagName = `role tag ${suffix}`;

const adminPath = (page: string) => `/console/projects/${bootstrap().projectId}/admin/${page}`;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage({ baseURL: serviceUrl() });
  await signInFresh(page);
  for (const [email, role] of [
    [memberEmail, 'member'],
    [adminEmail, 'admin'],
  ] as const) {
    const created = await consoleCall(page, 'POST', '/console/v1/users', { email, password, role });
    expect(created.status).toBe(201);
  }
  expect((await consoleCall(page, 'POST', '/console/v1/tags', { name: tagName })).status).toBe(201);
  const testId = await createTest(waitingTest(`role test ${suffix}`, 10));
  await createSchedule(page, scheduleName, [testId]);
  await page.close();
});

/** Signs in as `email`, failing the test on any uncaught page error. */
async function signInAs(page: Page, email: string) {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await signInFresh(page, email, password);
  return errors;
}

test('a member reads every administration list and is offered no change', async ({ page }) => {
  const errors = await signInAs(page, memberEmail);
  const main = page.getByRole('main');
  const note = main.getByRole('note');

  await page.goto(adminPath('api-keys'));
  await expect(note).toHaveText('Only owners and admins can manage API keys.');
  await expect(main.getByRole('table', { name: 'Keys of the organization' })).toBeVisible();
  await expect(main.getByRole('form')).toHaveCount(0);
  await expect(main.getByRole('button', { name: /^(Revoke|Delete) / })).toHaveCount(0);
  await expect(main.getByRole('columnheader', { name: 'Actions' })).toHaveCount(0);
  await expectAccessible(page);

  await page.goto(adminPath('webhooks'));
  await expect(note).toHaveText('Only owners and admins can manage webhooks.');
  await expect(main.getByRole('form', { name: 'Create a webhook' })).toHaveCount(0);

  await page.goto(adminPath('schedules'));
  await expect(note).toHaveText('Only owners and admins can create, edit or delete schedules.');
  const row = main.getByRole('row').filter({ hasText: scheduleName });
  await expect(row).toBeVisible();
  await expect(main.getByRole('form', { name: 'Create a schedule' })).toHaveCount(0);
  // Members start runs: triggering a schedule is theirs too; changing it is not.
  await expect(row.getByRole('button', { name: `Trigger now ${scheduleName}` })).toBeVisible();
  await expect(row.getByRole('button', { name: `Last runs of ${scheduleName}` })).toBeVisible();
  await expect(row.getByRole('button', { name: /^(Edit|Delete) / })).toHaveCount(0);
  await expect(row.getByRole('button', { name: /^(Enable|Disable)$/ })).toHaveCount(0);
  await expectAccessible(page);

  await page.goto(adminPath('users'));
  await expect(note).toHaveText('Only owners and admins can add or remove users.');
  await expect(main.getByRole('form', { name: 'Add a user' })).toHaveCount(0);
  await expect(main.getByRole('combobox')).toHaveCount(0);
  await expect(main.getByRole('button', { name: /^Remove / })).toHaveCount(0);
  await expect(main.getByRole('row').filter({ hasText: memberEmail })).toContainText('member');

  await page.goto(adminPath('tags'));
  await expect(note).toHaveText('Only owners and admins can create or delete tags.');
  await expect(main.getByRole('row').filter({ hasText: tagName })).toBeVisible();
  await expect(main.getByRole('button', { name: /^Delete / })).toHaveCount(0);

  for (const [path, text] of [
    ['secrets', 'Only owners and admins can set or delete secrets.'],
    ['presets', 'Only owners and admins can create or delete presets.'],
    ['email-inboxes', 'Only owners and admins can create or delete inboxes and messages.'],
    ['projects', 'Only owners and admins can create projects and branches.'],
  ] as const) {
    await page.goto(adminPath(path));
    await expect(note, path).toHaveText(text);
    await expect(main.getByRole('form', { name: /^(Set|Create) / }), path).toHaveCount(0);
  }
  // A project's branches are listed, without the form to create one.
  await main
    .getByRole('button', { name: /^Branches of / })
    .first()
    .click();
  await expect(main.getByRole('table', { name: /^Branches of / })).toBeVisible();
  await expect(main.getByRole('form', { name: 'Create a branch' })).toHaveCount(0);
  await expectAccessible(page);
  expect(errors).toEqual([]);
});

test('an admin manages users but sees roles, which only owners change, as text', async ({ page }) => {
  const errors = await signInAs(page, adminEmail);
  const main = page.getByRole('main');
  await page.goto(adminPath('users'));
  await expect(main.getByRole('note')).toHaveText('Only owners can change roles.');
  const form = main.getByRole('form', { name: 'Add a user' });
  // An owner is added by an owner only.
  await expect(form.getByLabel('Role').getByRole('option')).toHaveText(['admin', 'member']);
  await expect(main.getByRole('combobox', { name: /^Role of / })).toHaveCount(0);
  // Admins remove admins and members, not the owner.
  await expect(main.getByRole('button', { name: `Remove ${memberEmail}` })).toBeVisible();
  await expect(main.getByRole('button', { name: `Remove ${bootstrap().adminEmail}` })).toHaveCount(0);

  await page.goto(adminPath('api-keys'));
  await expect(main.getByRole('note')).toHaveCount(0);
  await expect(main.getByRole('form', { name: 'Create an API key' })).toBeVisible();
  await expectAccessible(page);
  expect(errors).toEqual([]);
});
