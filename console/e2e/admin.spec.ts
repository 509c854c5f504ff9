import { expect, test } from '@playwright/test';
import { bootstrap, expectAccessible, openAdminPage, serviceUrl, signInFresh } from './fixtures.ts';

/** Administration pages (console part 3), as an owner and as a member, against the real service. */
const adminPath = (page: string) => `/console/projects/${bootstrap().projectId}/admin/${page}`;
const memberEmail = `member-${Date.now()}@example.test`;
let memberPassword = '';

test.describe.configure({ mode: 'serial' });

test('an owner creates an API key, sees it once, and it works against the API', async ({ page }) => {
  await signInFresh(page);
  await openAdminPage(page, 'API keys');
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expectAccessible(page);

  const create = page.getByRole('form', { name: 'Create an API key' });
  await expect(create.getByRole('button', { name: 'Create key' })).toBeDisabled();
  await create.getByLabel('Key name').fill('e2e reader');
  await create.getByRole('group', { name: 'tests' }).getByLabel('tests:read').check();
  await create.getByRole('group', { name: 'testRuns' }).getByLabel('testRuns:read').check();
  await create.getByRole('button', { name: 'Create key' }).click();

  const notice = page.getByRole('status').filter({ hasText: 'never shown again' });
  await expect(notice).toBeVisible();
  const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
  expect(key).toMatch(/^sd_[0-9a-f]{48}$/);
  await expectAccessible(page);

  const row = page.getByRole('row').filter({ hasText: 'e2e reader' });
  await expect(row).toContainText(key.slice(0, 8));
  await expect(row).toContainText('tests:read, testRuns:read');
  // "Last used": Never until the key authenticates a request.
  await expect(row).toContainText('Never');

  const listed = await fetch(`${serviceUrl()}/v1/tests`, {
    headers: { 'x-api-key': key, 'x-project-id': bootstrap().projectId },
  });
  expect(listed.status).toBe(200);
  const refused = await fetch(`${serviceUrl()}/v1/tests/00000000-0000-4000-8000-000000000000`, {
    method: 'DELETE',
    headers: { 'x-api-key': key, 'x-project-id': bootstrap().projectId },
  });
  expect(refused.status).toBe(403);

  // Shown once: after a reload only the prefix remains; "Last used" now says how long ago (the
  // write is off the request's path, so it may land just after the call answered).
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('row').filter({ hasText: 'e2e reader' })).toContainText(/\d+ seconds? ago/, {
      timeout: 2_000,
    });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByRole('row').filter({ hasText: 'e2e reader' })).not.toContainText('Never');
  await expect(page.getByText(key)).toHaveCount(0);

  await page.getByRole('button', { name: 'Revoke e2e reader' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'e2e reader' })).toContainText('Revoked');
  const afterRevoke = await fetch(`${serviceUrl()}/v1/tests`, {
    headers: { 'x-api-key': key, 'x-project-id': bootstrap().projectId },
  });
  expect(afterRevoke.status).toBe(401);
});

test('an owner keeps config presets, checked against the run-config schema', async ({ page }) => {
  await signInFresh(page);
  await page.goto(adminPath('presets'));
  await expect(page.getByRole('heading', { name: 'Config presets' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Create a preset' });
  await form.getByLabel('Preset name').fill('Firefox smoke');
  await form.getByLabel('Run configuration (JSON)').fill('{ "retries": 42 }');
  await form.getByRole('button', { name: 'Create preset' }).click();
  await expect(page.getByRole('alert')).toContainText('retries');
  await form
    .getByLabel('Run configuration (JSON)')
    .fill('{ "use": { "browserName": "firefox" }, "retries": 1 }');
  await form.getByRole('button', { name: 'Create preset' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Firefox smoke' })).toContainText(
    '"browserName":"firefox"',
  );
  await expectAccessible(page);
});

test('an owner adds a member with a one-time password', async ({ page }) => {
  await signInFresh(page);
  await page.goto(adminPath('users'));
  await expect(page.getByRole('heading', { name: 'Users and roles' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(memberEmail);
  await form.getByLabel('Role').selectOption('member');
  await form.getByRole('button', { name: 'Add user' }).click();
  const notice = page.getByRole('status').filter({ hasText: memberEmail });
  await expect(notice).toBeVisible();
  memberPassword = (await notice.locator('code').textContent()) ?? '';
  expect(memberPassword).toMatch(/^[0-9a-f]{24}$/);
  await expect(page.getByLabel(`Role of ${memberEmail}`)).toHaveValue('member');
  // The last owner stays an owner: the service's refusal is shown as it worded it.
  await page.getByLabel(`Role of ${bootstrap().adminEmail}`).selectOption('admin');
  await expect(page.getByRole('alert')).toContainText('last owner cannot be demoted');
  await expect(page.getByLabel(`Role of ${bootstrap().adminEmail}`)).toHaveValue('owner');
  await expectAccessible(page);
});

test('a member is refused an admin action in the page and by the API', async ({ page }) => {
  expect(memberPassword).not.toBe('');
  await signInFresh(page, memberEmail, memberPassword);
  await page.goto(adminPath('api-keys'));
  // The page offers a member nothing to create (member-role.spec.ts covers every page) …
  await expect(page.getByRole('note')).toHaveText('Only owners and admins can manage API keys.');
  await expect(page.getByRole('form', { name: 'Create an API key' })).toHaveCount(0);

  // … and the service refuses the requests all the same (the audit log's test reads both).
  const statuses = await page.evaluate(async () => {
    const post = async (path: string, body: unknown) =>
      (
        await fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' },
          body: JSON.stringify(body),
        })
      ).status;
    return [
      await post('/console/v1/api-keys', { name: 'member key', scopes: ['tests:read'] }),
      await post('/console/v1/tags', { name: 'by a member' }),
    ];
  });
  expect(statuses).toEqual([403, 403]);

  // The audit log: the page says who may read it, and the service refuses the member the list.
  await page.goto(adminPath('audit-log'));
  await expect(page.getByRole('note')).toHaveText('Only owners and admins can read the audit log.');
  expect(await page.evaluate(async () => (await fetch('/console/v1/audit-log')).status)).toBe(403);
  await expectAccessible(page);
});

test('the audit log shows each action with its actor and outcome, filtered', async ({ page }) => {
  await signInFresh(page);
  await page.goto(adminPath('audit-log'));
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  const table = page.getByRole('table');
  const ownerCreate = table
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: 'POST /console/v1/api-keys', exact: true }) })
    .filter({ hasText: bootstrap().adminEmail });
  await expect(ownerCreate.first()).toContainText('201');
  await expect(
    table.getByRole('row').filter({ hasText: 'POST /console/v1/api-keys/:id/revoke' }).first(),
  ).toContainText(bootstrap().adminEmail);
  await expectAccessible(page);

  const filters = page.getByRole('form', { name: 'Filter the audit log' });
  await filters.getByLabel('Actor').fill(memberEmail);
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('POST /console/v1/tags');
  await expect(rows.nth(1)).toContainText('POST /console/v1/api-keys');
  for (const index of [0, 1]) await expect(rows.nth(index)).toContainText('403');
  await expect(rows.nth(0)).toContainText(memberEmail);

  const csv = await page.evaluate(
    async (href) => (await fetch(href)).text(),
    (await page.getByRole('link', { name: 'CSV' }).getAttribute('href')) ?? '',
  );
  expect(csv.split('\r\n')[0]).toMatch(/^createdAt,actorType,actor,action/);
  expect(csv).toContain(memberEmail);
  expect(csv).not.toContain(bootstrap().adminEmail);
});

test('secrets are write-only, tags and the organization limits are kept by an owner', async ({ page }) => {
  await signInFresh(page);
  await page.goto(adminPath('secrets'));
  await expect(page.getByRole('heading', { name: 'Secrets' })).toBeVisible();
  const value = 'e2e-secret-value-Ü!(&';
  const secretForm = page.getByRole('form', { name: 'Set a secret' });
  await secretForm.getByLabel('Secret name').fill('E2E_TOKEN');
  await secretForm.getByLabel('Value').fill(value);
  await secretForm.getByRole('button', { name: 'Save secret' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'E2E_TOKEN' })).toBeVisible();
  await expect(secretForm.getByLabel('Value')).toHaveValue('');
  expect(await page.content()).not.toContain(value);
  await expectAccessible(page);

  await openAdminPage(page, 'Tags');
  await expect(page.getByRole('heading', { name: 'Tags' })).toBeVisible();
  await page.getByLabel('Tag name').fill('e2e-smoke');
  await page.getByRole('button', { name: 'Create tag' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'e2e-smoke' })).toBeVisible();
  await expectAccessible(page);

  await openAdminPage(page, 'Organization');
  await expect(page.getByRole('heading', { name: 'Organization', level: 1 })).toBeVisible();
  await expect(page.getByText('subscription active')).toBeVisible();
  await page.getByLabel('Concurrent runs (1–64)').fill('3');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Limits saved.' })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Concurrent runs (1–64)')).toHaveValue('3');
  await expectAccessible(page);
  // Back to the default, for the specs that run after this one on the same service.
  await page.getByLabel('Concurrent runs (1–64)').fill('2');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Limits saved.' })).toBeVisible();
});

test('a schedule shows its cron in words and its next five firings, and names a preset', async ({ page }) => {
  await signInFresh(page);
  await page.goto(adminPath('schedules'));
  await expect(page.getByRole('heading', { name: 'Schedules' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Create a schedule' });
  await form.getByLabel('Time zone').fill('Europe/Paris');
  await form.getByLabel('Cron expression').fill('30 9 * * 1-5');
  const preview = page.getByRole('region', { name: 'Cron preview' });
  await expect(preview.getByTestId('cron-words')).toHaveText('At 09:30, Monday through Friday');
  const firings = preview.getByRole('listitem');
  await expect(firings).toHaveCount(5);
  // In the schedule's own zone, labelled (Paris: GMT+1 in winter, GMT+2 in summer).
  for (const firing of await firings.allTextContents())
    expect(firing).toMatch(/^(Mon|Tue|Wed|Thu|Fri) \d{4}-\d{2}-\d{2} 09:30:00 GMT\+[12]$/);
  await expectAccessible(page);

  await form.getByLabel('Cron expression').fill('61 * * * *');
  await expect(preview.getByRole('alert')).toContainText("Invalid cron expression '61 * * * *'");
  // Said once: the words line does not repeat the error in its own terms.
  await expect(preview.getByTestId('cron-words')).toHaveCount(0);
  await expect(preview.getByText(/Error:/)).toHaveCount(0);
  await form.getByLabel('Cron expression').fill('30 9 * * 1-5');

  await form.getByLabel('Schedule name').fill('Weekday smoke');
  await form.getByLabel('Target tag').selectOption({ label: 'e2e-smoke' });
  await form.getByLabel(/^Preset/).selectOption({ label: 'Firefox smoke' });
  await form.getByRole('button', { name: 'Create schedule' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Weekday smoke' });
  await expect(row).toContainText('tag e2e-smoke');
  await expect(row).toContainText('Firefox smoke');
  await expect(row).toContainText('09:30:00');
  await row.getByRole('button', { name: 'Disable' }).click();
  await expect(row).toContainText('Disabled');
  await expectAccessible(page);
});
