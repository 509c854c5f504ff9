import { expect, test } from '@playwright/test';
import { startOidcProvider, type TestOidcProvider } from '../../service/test/modules/sso/oidc-provider.ts';
import {
  accountButton,
  consoleFetch,
  expectAccessible,
  serviceUrl,
  signInFresh,
  signOut,
} from './fixtures.ts';

/**
 * Single sign-on end to end: an install admin sets an organization's provider in the Install
 * area, then a person of that organization signs in through the real provider's login form
 * (oidc-provider on loopback), lands in the console and signs out.
 */
test.describe.configure({ mode: 'serial' });

const stamp = Date.now();
const domain = `sso-${stamp}.example`;
const person = { login: `dana-${stamp}`, email: `dana@${domain}` };
const organization = {
  name: `SSO ${stamp}`,
  ownerEmail: `owner@${domain}`,
  ownerPassword: 'sso-owner-pass-1',
};
let provider: TestOidcProvider;

test.beforeAll(async () => {
  provider = await startOidcProvider({
    redirectUri: `${serviceUrl()}/console/v1/sso/callback`,
    postLogoutRedirectUri: `${serviceUrl()}/console/sign-in`,
  });
  provider.accounts.set(person.login, { email: person.email, groups: ['qa-leads'] });
});
test.afterAll(async () => provider?.close());

test('an install admin sets an organization’s provider in the Install area', async ({ page }) => {
  await signInFresh(page);
  const created = await consoleFetch(page, 'POST', '/console/v1/install/organizations', organization);
  expect(created.status).toBe(201);
  await page.goto(
    `/console/projects/${(await consoleFetch(page, 'GET', '/console/v1/projects')).json.data[0].id}/install`,
  );
  const section = page.getByRole('region', { name: 'Single sign-on' });
  await section.getByLabel('Organization', { exact: true }).selectOption({ label: organization.name });
  await expect(section.getByText(`No single sign-on provider for ${organization.name} yet`)).toBeVisible();
  const form = section.getByRole('form', { name: `Single sign-on of ${organization.name}` });
  await form.getByLabel('Issuer URL').fill(provider.issuer);
  await form.getByLabel('Client ID').fill(provider.clientId);
  await form.getByLabel('Client secret').fill(provider.clientSecret);
  await form.getByLabel('Sign-on name').fill(`sso-${stamp}`);
  await form.getByLabel('Email domains').fill(domain);
  await form.getByLabel('Role mapping').fill('qa-leads = admin\nqa = member');
  await form.getByRole('button', { name: 'Save single sign-on' }).click();
  await expect(section.getByText(`${serviceUrl()}/console/v1/sso/callback`)).toBeVisible();
  await expect(section.getByLabel('Client secret')).toHaveAttribute(
    'placeholder',
    'Stored; leave empty to keep it',
  );
  await expect(section.getByLabel('Client secret')).toHaveValue('');
  await expectAccessible(page);
  const read = await consoleFetch(
    page,
    'GET',
    `/console/v1/install/organizations/${created.json.data.id}/sso`,
  );
  expect(read.json.data).toMatchObject({
    clientSecretSet: true,
    roleMappings: [
      { group: 'qa-leads', role: 'admin' },
      { group: 'qa', role: 'member' },
    ],
  });
  expect(JSON.stringify(read.json)).not.toContain(provider.clientSecret);
});

test('a person signs in through the provider’s login form, lands in the console and signs out', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/console/sign-in');
  await expect(page.getByRole('heading', { name: 'Sign in with single sign-on' })).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Organization or work address').fill(person.email);
  await page.getByRole('button', { name: 'Continue with single sign-on' }).click();

  // The provider's own login page (oidc-provider's development form).
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(person.login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();

  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  expect(page.url().startsWith(`${serviceUrl()}/console/projects/`)).toBe(true);
  await expect(accountButton(page)).toContainText(person.email);
  const session = await consoleFetch(page, 'GET', '/console/v1/session');
  expect(session.json.data).toMatchObject({ email: person.email, role: 'admin' });
  await expectAccessible(page);

  await signOut(page);
  // The provider asks to end its own session too, then sends the browser back to the console.
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/session/end`));
  await page.getByRole('button', { name: /sign me out/i }).click();
  await expect(page).toHaveURL(`${serviceUrl()}/console/sign-in`);
  await expect(page.getByRole('heading', { name: 'Sign in to Stepdeck' })).toBeVisible();
  expect((await consoleFetch(page, 'GET', '/console/v1/session')).status).toBe(401);
  expect(errors).toEqual([]);
});
