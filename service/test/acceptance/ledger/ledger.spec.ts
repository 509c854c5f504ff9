/**
 * A Playwright suite for Ledger (../ledger-app.ts) written the way Playwright's docs teach:
 * locators by role and label, web-first assertions, `page.route` for the API, `waitForEvent`
 * for new tabs and popups, `contentFrame()` for frames, `test.use` for devices and locales,
 * `@axe-core/playwright` for accessibility and `otpauth` for the one-time code. Nothing here
 * knows Stepdeck; the same tests written as steps are in ledger.steps.ts.
 */
import AxeBuilder from '@axe-core/playwright';
import { devices, expect, type Page, test } from '@playwright/test';
import * as OTPAuth from 'otpauth';

const totp = new OTPAuth.TOTP({ secret: 'JBSWY3DPEHPK3PXP' });

async function signIn(page: Page) {
  await page.goto('login');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Password').fill('correct horse');
  await page.getByLabel('One-time code').fill(totp.generate());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Expenses' })).toBeVisible();
}

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => violation.id);
}

test.describe('Sign in', () => {
  test('signs in with a valid one-time code', async ({ page }) => {
    await signIn(page);
    await expect(page).toHaveURL(/\/expenses$/);
  });

  test('refuses a wrong one-time code', async ({ page }) => {
    await page.goto('login');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('correct horse');
    await page.getByLabel('One-time code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('Wrong email, password or one-time code.');
  });

  test('refuses a wrong password', async ({ page }) => {
    await page.goto('login');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('wrong horse');
    await page.getByLabel('One-time code').fill(totp.generate());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });

  test('has no serious accessibility violations on the sign-in page', async ({ page }) => {
    await page.goto('login');
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test.describe('Expenses', () => {
  test('lists the expenses from the API', async ({ page }) => {
    await signIn(page);
    await expect(page.getByTestId('expense')).toHaveText(['Coffee €3.50', 'Train ticket €12.00']);
  });

  test('shows the total', async ({ page }) => {
    await signIn(page);
    await expect(page.getByRole('status', { name: 'Total' })).toHaveText('€15.50');
  });

  test('adds an expense and updates the total', async ({ page }) => {
    await signIn(page);
    await page.getByLabel('Description').fill('Lunch');
    await page.getByLabel('Amount').fill('4.50');
    const responsePromise = page.waitForResponse(
      (response) => response.url().endsWith('/api/expenses') && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Add expense' }).click();
    const response = await responsePromise;
    expect(response.status()).toBe(201);
    expect((await response.json()).expense.description).toBe('Lunch');
    await expect(page.getByTestId('expense')).toHaveText([
      'Coffee €3.50',
      'Train ticket €12.00',
      'Lunch €4.50',
    ]);
    await expect(page.getByRole('status', { name: 'Total' })).toHaveText('€20.00');
  });

  test('refuses an expense without a description', async ({ page }) => {
    await signIn(page);
    await page.getByLabel('Amount').fill('4.50');
    await page.getByRole('button', { name: 'Add expense' }).click();
    await expect(page.getByRole('alert')).toHaveText('Enter a description.');
    await expect(page.getByTestId('expense')).toHaveCount(2);
  });

  test('shows the expenses a mocked API returns', async ({ page }) => {
    await page.route('**/api/expenses', (route) =>
      route.fulfill({ json: { expenses: [{ description: 'Mocked', amount: 1 }] } }),
    );
    await signIn(page);
    await expect(page.getByTestId('expense')).toHaveText(['Mocked €1.00']);
  });

  test('says so when the API cannot be reached', async ({ page }) => {
    await page.route('**/api/expenses', (route) => route.abort());
    await signIn(page);
    await expect(page.getByRole('alert')).toHaveText('Could not load expenses.');
  });

  test('says so when the API fails', async ({ page }) => {
    await page.route('**/api/expenses', (route) => route.fulfill({ status: 500, body: 'down' }));
    await signIn(page);
    await expect(page.getByRole('alert')).toHaveText('Could not load expenses.');
  });

  test('shows an empty state', async ({ page }) => {
    await page.route('**/api/expenses', (route) => route.fulfill({ json: { expenses: [] } }));
    await signIn(page);
    await expect(page.getByText('No expenses yet.')).toBeVisible();
  });

  test('has no serious accessibility violations on the expenses page', async ({ page }) => {
    await signIn(page);
    await expect(page.getByTestId('expense')).toHaveCount(2);
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test.describe('Tabs, popups and frames', () => {
  test('opens the receipt help in a new tab', async ({ page, context }) => {
    await signIn(page);
    const pagePromise = context.waitForEvent('page');
    await page.getByRole('link', { name: 'Receipt help' }).click();
    const help = await pagePromise;
    await expect(help).toHaveTitle('Receipt help · Ledger');
    await expect(help.getByRole('heading', { name: 'Receipt help' })).toBeVisible();
  });

  test('prints the expenses in a popup', async ({ page }) => {
    await signIn(page);
    const popupPromise = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Print' }).click();
    const popup = await popupPromise;
    await expect(popup.getByRole('listitem')).toHaveText(['Coffee', 'Train ticket']);
  });

  test('closes the print preview and goes on with the expenses', async ({ page }) => {
    await signIn(page);
    const popupPromise = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Print' }).click();
    const popup = await popupPromise;
    await expect(popup.getByRole('heading', { name: 'Print preview' })).toBeVisible();
    await popup.close();
    await page.getByLabel('Description').fill('Taxi');
    await page.getByLabel('Amount').fill('20');
    await page.getByRole('button', { name: 'Add expense' }).click();
    await expect(page.getByTestId('expense')).toHaveCount(3);
  });

  test('sets a budget in the widget', async ({ page }) => {
    await signIn(page);
    const widget = page.locator('iframe[title="Budget widget"]').contentFrame();
    await widget.getByLabel('Monthly budget').fill('250');
    await widget.getByRole('button', { name: 'Set budget' }).click();
    await expect(widget.getByText('Budget: 250')).toBeVisible();
  });

  test('shows a tip in the widget’s own frame', async ({ page }) => {
    await signIn(page);
    const tip = page
      .locator('iframe[title="Budget widget"]')
      .contentFrame()
      .locator('iframe[title="Tip"]')
      .contentFrame();
    await expect(tip.getByText('Tip: set a budget below your income.')).toBeVisible();
  });
});

test.describe('Settings and navigation', () => {
  test('keeps the weekly summary setting after a reload', async ({ page }) => {
    await signIn(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Email me a weekly summary').check();
    await page.reload();
    await expect(page.getByLabel('Email me a weekly summary')).toBeChecked();
    expect(await page.evaluate(() => localStorage.getItem('ledger-weekly'))).toBe('yes');
  });

  test('goes back and forward between pages', async ({ page }) => {
    await signIn(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/\/expenses$/);
    await page.goForward();
    await expect(page).toHaveURL(/\/settings$/);
  });

  test('signs out and protects the expenses page', async ({ page }) => {
    await signIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await page.goto('expenses');
    await expect(page).toHaveURL(/\/login$/);
  });
});

// A device's `defaultBrowserType` may only be set for a whole file; the rest is per group.
const { defaultBrowserType: _browser, ...pixel7 } = devices['Pixel 7'];

test.describe('On a phone', () => {
  test.use(pixel7);

  test('collapses the navigation into a menu', async ({ page }) => {
    await signIn(page);
    await expect(page.getByRole('link', { name: 'Settings' })).toBeHidden();
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'true');
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  });
});

test.describe('In German', () => {
  test.use({ locale: 'de-DE' });

  test('formats amounts in the browser’s language', async ({ page }) => {
    await signIn(page);
    await expect(page.getByRole('status', { name: 'Total' })).toContainText('15,50');
  });
});
