import { expect } from '@playwright/test';
import {
  bootstrap,
  consoleFetch,
  expectAccessible,
  mainNav,
  signInFresh,
  signedInTest as test,
} from './fixtures.ts';

/** The install administration area as the bootstrap install admin, and as an organization's owner. */
test.describe.configure({ mode: 'serial' });

const stamp = Date.now();
const installPath = () => `/console/projects/${bootstrap().projectId}/install`;
const organization = {
  name: `Tenant ${stamp}`,
  ownerEmail: `owner-${stamp}@example.test`,
  ownerPassword: 'tenant-pass-1',
};
const row = (page: import('@playwright/test').Page) =>
  page
    .getByRole('table', { name: /^\d+ organizations?$/ })
    .getByRole('row')
    .filter({ hasText: organization.name });

test('an install admin opens the Install area from the header and manages an organization', async ({
  page,
}) => {
  const created = await consoleFetch(page, 'POST', '/console/v1/install/organizations', organization);
  expect(created.status).toBe(201);
  const organizationId = created.json.data.id as string;

  await mainNav(page).getByRole('link', { name: 'Install' }).click();
  await expect(page.getByRole('heading', { name: 'Install administration' })).toBeVisible();
  await expect(page.getByText(/Runner slots: \d+/)).toBeVisible();
  await expect(row(page)).toContainText('Active');
  await expectAccessible(page);
  await page.screenshot({ path: test.info().outputPath('console-install.png'), fullPage: true });

  // Subscription: the switch says what it changes and the change is the service's.
  const subscription = row(page).getByRole('checkbox', {
    name: `Subscription of ${organization.name} active`,
  });
  const wasActive = await subscription.isChecked();
  await subscription.click();
  await expect(subscription).toBeChecked({ checked: !wasActive });
  const read = async () =>
    (await consoleFetch(page, 'GET', `/console/v1/install/organizations/${organizationId}`)).json.data;
  expect((await read()).subscriptionActive).toBe(!wasActive);

  // Concurrency cap: saved, and a refusal past the runner slots is shown with the service's words.
  const cap = row(page).getByRole('spinbutton', { name: `Concurrency cap of ${organization.name}` });
  await cap.fill('1');
  await row(page)
    .getByRole('form', { name: `Concurrency cap of ${organization.name}` })
    .getByRole('button', { name: 'Save' })
    .click();
  await expect.poll(async () => (await read()).concurrencyCap).toBe(1);
  await page.reload();
  await expect(
    row(page).getByRole('spinbutton', { name: `Concurrency cap of ${organization.name}` }),
  ).toHaveValue('1');

  // Quotas: the install's default named while unset; set in MiB and as a count; empty is the default again.
  const quotaForm = row(page).getByRole('form', { name: `Artifact quota of ${organization.name}` });
  const inboxForm = row(page).getByRole('form', { name: `Inbox limit of ${organization.name}` });
  await expect(quotaForm).toContainText(/Default \(\d+(\.\d)? [KMGT]iB\)/);
  await expect(inboxForm).toContainText('Default (5 inboxes)');
  await quotaForm
    .getByRole('spinbutton', { name: /^Artifact quota of .+ \(MiB; empty for the install's default\)$/ })
    .fill('2');
  await quotaForm.getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await read()).artifactQuotaBytes).toBe(2 * 1024 * 1024);
  await inboxForm.getByRole('spinbutton').fill('3');
  await inboxForm.getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await read()).inboxLimit).toBe(3);
  await expect(inboxForm).toContainText('inboxes');
  await expect(inboxForm).not.toContainText('Default');
  await expectAccessible(page);
  await inboxForm.getByRole('spinbutton').fill('');
  await inboxForm.getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await read()).inboxLimit).toBeNull();
  await expect(inboxForm).toContainText('Default (5 inboxes)');

  // Suspend (confirmed), restore, then delete (confirmed).
  await row(page)
    .getByRole('button', { name: `Suspend ${organization.name}` })
    .click();
  const suspendDialog = page.getByRole('dialog', { name: `Suspend ${organization.name}?` });
  await expect(suspendDialog).toBeVisible();
  await expectAccessible(page);
  await suspendDialog.getByRole('button', { name: 'Suspend organization' }).click();
  await expect(row(page)).toContainText('Suspended');
  expect((await read()).suspendedAt).not.toBeNull();
  await row(page)
    .getByRole('button', { name: `Restore ${organization.name}` })
    .click();
  await expect(row(page)).toContainText('Active');

  await row(page)
    .getByRole('button', { name: `Delete ${organization.name}` })
    .click();
  const deleteDialog = page.getByRole('dialog', { name: `Delete ${organization.name}?` });
  await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(deleteDialog).toHaveCount(0);
  expect((await read()).deleteAfter).toBeNull();
  await row(page)
    .getByRole('button', { name: `Delete ${organization.name}` })
    .click();
  await deleteDialog.getByRole('button', { name: 'Delete organization' }).click();
  await expect(row(page)).toContainText('Deleted, purged');
  expect((await read()).deleteAfter).not.toBeNull();
});

test('an install admin grants and revokes the role, and reads the install audit log', async ({ page }) => {
  const other = {
    name: `Admins ${stamp}`,
    ownerEmail: `second-${stamp}@example.test`,
    ownerPassword: 'tenant-pass-2',
  };
  expect((await consoleFetch(page, 'POST', '/console/v1/install/organizations', other)).status).toBe(201);
  await page.goto(installPath());
  const admins = page.getByRole('table', { name: /install admins?$/ });
  await expect(admins).toContainText(bootstrap().adminEmail);

  const grant = page.getByRole('form', { name: 'Grant the install-admin role' });
  await grant.getByLabel("User's email").fill(`nobody-${stamp}@example.test`);
  await grant.getByRole('button', { name: 'Grant' }).click();
  await expect(page.getByRole('alert').filter({ hasText: /./ }).first()).toBeVisible();

  await grant.getByLabel("User's email").fill(other.ownerEmail);
  await grant.getByRole('button', { name: 'Grant' }).click();
  const granted = admins.getByRole('row').filter({ hasText: other.ownerEmail });
  await expect(granted).toContainText(bootstrap().adminEmail);
  await granted.getByRole('button', { name: `Revoke install admin from ${other.ownerEmail}` }).click();
  await expect(granted).toHaveCount(0);

  const log = page.getByRole('table', { name: /across organizations/ });
  await expect(log).toContainText('/console/v1/install/admins');
  await expect(page.getByRole('navigation', { name: 'Install audit log pages' })).toContainText('Page 1 of');
  await expectAccessible(page);
});

test("an organization's owner sees no Install link and the page refuses them", async ({ page }) => {
  const tenant = {
    name: `Owner ${stamp}`,
    ownerEmail: `plain-${stamp}@example.test`,
    ownerPassword: 'tenant-pass-3',
  };
  const created = await consoleFetch(page, 'POST', '/console/v1/install/organizations', tenant);
  expect(created.status).toBe(201);
  const limits = `/console/v1/install/organizations/${created.json.data.id}/limits`;
  expect((await consoleFetch(page, 'PUT', limits, { inboxLimit: 2 })).status).toBe(200);
  await page.context().clearCookies();
  await signInFresh(page, tenant.ownerEmail, tenant.ownerPassword);
  await expect(mainNav(page).getByRole('link', { name: 'Runs' })).toBeVisible();
  await expect(mainNav(page).getByRole('link', { name: 'Install' })).toHaveCount(0);
  await page.goto(`/console/projects/${created.json.data.projectId}/install`);
  await expect(page.getByText("Only the install's administrators can open this page.")).toBeVisible();
  expect((await consoleFetch(page, 'GET', '/console/v1/install/organizations')).status).toBe(403);
  await expectAccessible(page);
  // Its quotas, read-only on the organization page; a change is refused with the service's rule.
  await page.goto(`/console/projects/${created.json.data.projectId}/admin/organization`);
  const quotas = page.getByRole('definition').filter({ hasText: /set for this organization|default/ });
  await expect(page.getByLabel('Organization quotas')).toContainText("(the install's default)");
  await expect(page.getByLabel('Organization quotas')).toContainText('2 (set for this organization)');
  await expect(quotas).toHaveCount(2);
  expect((await consoleFetch(page, 'PUT', limits, { inboxLimit: 1000 })).status).toBe(403);
  await expectAccessible(page);
});
