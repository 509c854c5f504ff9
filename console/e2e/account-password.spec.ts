import { expect, type Page, test } from '@playwright/test';
import { consoleFetch, expectAccessible, signInFresh } from './fixtures.ts';

/**
 * A user added with a one-time password (shown once to the admin who added them) changes it
 * from the account menu; the old one stops working, their other sessions end.
 */
const email = `password-member-${Date.now()}@example.test`;
const oneTime = 'one-time-password-e2e-1';
const chosen = 'chosen-password-e2e-22';

async function addMember(page: Page) {
  await signInFresh(page);
  const { status } = await consoleFetch(page, 'POST', '/console/v1/users', {
    email,
    password: oneTime,
    role: 'member',
  });
  expect(status).toBe(201);
  await page.context().clearCookies();
}

test('a member changes the one-time password from the account menu', async ({ page, browser }) => {
  await addMember(page);
  await signInFresh(page, email, oneTime);
  // A second session elsewhere, which the change must end.
  const elsewhere = await browser.newPage();
  await signInFresh(elsewhere, email, oneTime);

  await page.getByRole('button', { name: `Account: ${email}` }).click();
  await page.getByRole('link', { name: 'Change password' }).click();
  await expect(page.getByRole('heading', { name: 'Change your password' })).toBeVisible();
  await expectAccessible(page);

  const current = page.getByLabel('Current password');
  const next = page.getByLabel('New password', { exact: true });
  const repeat = page.getByLabel('Repeat the new password');
  const submit = page.getByRole('button', { name: 'Change password' });

  // Two different new passwords: said at the field, nothing sent.
  await current.fill(oneTime);
  await next.fill(chosen);
  await repeat.fill(`${chosen}x`);
  await expect(page.getByText('The two new passwords differ.')).toBeVisible();
  await expect(submit).toBeDisabled();

  // A wrong current password: the service's reason.
  await current.fill('not the password at all');
  await repeat.fill(chosen);
  await submit.click();
  await expect(page.getByRole('alert')).toContainText('the current password is wrong');

  await current.fill(oneTime);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await submit.click();
  await expect(page.getByRole('status')).toHaveText('Password changed. Your other sessions have ended.');
  await expect(current).toHaveValue('');

  // This session stays; the other one is signed out; only the new password signs in.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Change your password' })).toBeVisible();
  await elsewhere.reload();
  await expect(elsewhere.getByRole('heading', { name: 'Sign in to Stepdeck' })).toBeVisible();
  await elsewhere.getByLabel('Email').fill(email);
  await elsewhere.getByLabel('Password').fill(oneTime);
  await elsewhere.getByRole('button', { name: 'Sign in' }).click();
  await expect(elsewhere.getByRole('alert')).toHaveText('Invalid email or password');
  await elsewhere.getByLabel('Password').fill(chosen);
  await elsewhere.getByRole('button', { name: 'Sign in' }).click();
  await expect(elsewhere.getByRole('heading', { name: 'Runs' })).toBeVisible();
  await elsewhere.close();
});
