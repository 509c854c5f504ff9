import { expect, test } from '@playwright/test';
import {
  createTest,
  expectAccessible,
  runPath,
  signInFresh,
  siteUrl,
  startRun,
  waitForRun,
} from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

/**
 * Locator suggestions on the run page: a step looks for a button "Greet now" the page calls
 * "Greet"; the failure lists the page's closest elements with their match counts, "Use this
 * locator" puts the best one into the test, and the next run passes. A `heal: retry` run shows
 * the test as healed, never as a plain pass.
 */
const greeter = (name: string, heal?: 'retry') => ({
  name,
  config: { ...(heal ? { heal } : {}), use: { baseURL: siteUrl(), actionTimeout: 1500 } },
  steps: [
    { name: 'open', action: { name: 'goto', url: '/greet' } },
    { name: 'who', action: { name: 'fill', selector: '#who', value: 'Ada' } },
    { name: 'greet', action: { name: 'click', selector: 'internal:role=button[name="Greet now"s]' } },
    { name: 'greeted', action: { name: 'assertText', selector: '#out', value: 'Hello Ada' } },
  ],
});
const greet = "getByRole('button', { name: 'Greet' })";
// The steps that pass may take a while on a busy machine; the one that fails waits this long.
const runConfig = () => ({ use: { baseURL: siteUrl(), actionTimeout: 5_000 } });

test.describe('locator suggestions on the run page', () => {
  // Each test waits for real runs of its own (two in the first) on a 2-core machine.
  test.describe.configure({ timeout: 300_000 });

  test.beforeEach(async ({ page }) => {
    await signInFresh(page);
  });

  test('lists the closest elements under the failure and applies one; the next run passes', async ({
    page,
  }) => {
    const testId = await createTest(greeter('greeter with a renamed button'));
    const runId = await startRun(testId, runConfig());
    await waitForRun(runId, ['completed', 'failed']);
    await page.goto(runPath(runId));
    await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('failed');
    const card = page.getByTestId('test-result').first();
    await expect(card.locator('.error-message').first()).toContainText(`closest now: ${greet}`);
    const suggestions = card.getByRole('region', { name: /No element for/ });
    await expect(suggestions.getByRole('heading')).toHaveText(
      "No element for getByRole('button', { name: 'Greet now', exact: true }) (step 3)",
    );
    const best = suggestions.getByRole('listitem').first();
    await expect(best).toContainText(greet);
    await expect(best).toContainText('1 match now');
    await expectAccessible(page);
    await page.screenshot({ path: '../docs/console-run-suggestions.png', fullPage: true });

    await best.getByRole('button', { name: `Use this locator: ${greet}` }).click();
    await expect(suggestions.getByRole('status')).toContainText(
      'Step 3 now uses internal:role=button[name="Greet"i]',
    );
    await expect(suggestions.getByRole('link', { name: 'Open the test' })).toBeVisible();
    await expectAccessible(page);

    const next = await startRun(testId, runConfig());
    const finished = await waitForRun(next, ['completed', 'failed']);
    expect(finished.status).toBe('completed');
  });

  test('shows a test healed by heal: retry as healed, with the locator it used', async ({ page }) => {
    const runId = await startRun(
      await createTest(greeter('greeter healed on the fly', 'retry')),
      runConfig(),
    );
    await waitForRun(runId, ['completed', 'failed']);
    await page.goto(runPath(runId));
    await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('completed');
    const card = page.getByTestId('test-result').first();
    await expect(card.locator('header .badge')).toHaveText('healed');
    await expect(card.locator('header').getByText('passed', { exact: true })).toHaveCount(0);
    await card.getByText('Steps').click();
    const step = card.locator('.steps li').filter({ hasText: 'greet' }).filter({ hasText: 'passed with' });
    await expect(step).toContainText(`passed with ${greet}`);
    await expectAccessible(page);
  });
});
