import { expect, test } from '@playwright/test';
import {
  accountButton,
  bootstrap,
  createTest,
  expectAccessible,
  runPath,
  signIn,
  signInFresh,
  signOut,
  startRun,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

test.describe('sign-in and sign-out', () => {
  test('signs in with Email and Password and lands on the runs list', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/console\/sign-in/);
    await expect(page.getByRole('heading', { name: 'Sign in to Stepdeck' })).toBeVisible();
    await expectAccessible(page);
    await signIn(page, bootstrap().adminEmail, 'wrong-password');
    // One message, in the service's words: no "Could not sign in (401)" heading above it.
    await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
    await signIn(page);
    await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/console/projects/${bootstrap().projectId}/runs$`));
    await expect(accountButton(page)).toHaveAccessibleName(`Account: ${bootstrap().adminEmail}`);
    await accountButton(page).click();
    await expect(page.getByText(`Signed in as ${bootstrap().adminEmail} (owner)`)).toBeVisible();
    await expectAccessible(page);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeHidden();
    await expect(accountButton(page)).toBeFocused();
  });

  test('a deep link to a run survives sign-in', async ({ page }) => {
    const runId = await startRun(await createTest(waitingTest('deep link target', 10)));
    await waitForRun(runId, ['completed', 'failed']);
    await page.goto(runPath(runId));
    await expect(page).toHaveURL(/\/console\/sign-in\?next=/);
    await signIn(page);
    await expect(page).toHaveURL(new RegExp(`${runPath(runId)}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'deep link target' })).toBeVisible();
  });

  test('an expired session sends the user to sign-in and back to the page asked for', async ({
    page,
    context,
  }) => {
    await signInFresh(page);
    // The dashboard does not poll, so nothing else notices the session going first.
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    // Let the dashboard's own requests finish first, so the click below is what meets the 401.
    await page.waitForLoadState('networkidle');
    await context.clearCookies();
    // Whichever request meets the 401 first — this click, or a refetch the app makes on its own —
    // sends the user to sign-in, remembering the page they were on or asked for.
    // `next` is a path inside the console (below `/console`).
    const asked = `/projects/${bootstrap().projectId}`;
    await page
      .getByRole('link', { name: 'Runs', exact: true })
      .first()
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    await expect(page).toHaveURL(/\/console\/sign-in\?next=/);
    const next = new URL(page.url()).searchParams.get('next') ?? '';
    expect(next).toMatch(new RegExp(`^${asked}/(runs|dashboard)$`));
    await signIn(page);
    await expect(page).toHaveURL(new RegExp(`/console${next}$`));
    await expect(
      page.getByRole('heading', { name: next.endsWith('runs') ? 'Runs' : 'Dashboard' }),
    ).toBeVisible();
  });

  test('signs out for good', async ({ page }) => {
    await signInFresh(page);
    await signOut(page);
    await expect(page.getByRole('heading', { name: 'Sign in to Stepdeck' })).toBeVisible();
    await page.goto(`/console/projects/${bootstrap().projectId}/runs`);
    await expect(page).toHaveURL(/\/console\/sign-in\?next=/);
    const session = await page.request.get('/console/v1/session');
    expect(session.status()).toBe(401);
  });
});
