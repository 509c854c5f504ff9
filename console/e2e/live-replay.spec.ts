import { expect } from '@playwright/test';
import { editorPath, stepField, stepsList } from './authoring-fixtures.ts';
import { createTest, expectAccessible, siteUrl, signedInTest as test } from './fixtures.ts';

/**
 * Replay to a step in the live browser: the test's steps up to the chosen one run in the
 * service's Chromium, so the next step is picked from the page they lead to; a step the live
 * browser does not run stops the replay, named with why.
 */
test.describe('live browser replay', () => {
  test('replays a sign-in up to its third step, picks the next step from that page, and stops at a script', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const testId = await createTest({
      name: `replay ${Date.now().toString(36)}`,
      config: { use: { baseURL: `${siteUrl()}/login` } },
      vars: { user: 'ada' },
      steps: [
        { name: 'Open sign-in', action: { name: 'goto', url: '/login' } },
        { name: 'Type the user', action: { name: 'fill', selector: '#user', value: '{{vars.user}}' } },
        { name: 'Sign in', action: { name: 'click', selector: 'internal:role=button[name="Sign in"i]' } },
        { name: 'Run a script', action: { name: 'evaluate', script: 'document.title' } },
      ],
    });
    await page.goto(editorPath(testId));
    await page.getByRole('button', { name: 'Open live browser' }).click();
    const panel = page.getByRole('region', { name: 'Live browser' });
    await expect(panel.getByRole('application', { name: 'Live browser showing Sign in' })).toBeVisible({
      timeout: 60_000,
    });
    const status = panel.locator('p.notice');
    // Nothing chosen: nothing to replay up to.
    await expect(panel.getByRole('button', { name: /^Replay to this step/ })).toHaveCount(0);

    await stepsList(page)
      .getByRole('button', { name: /^3\. Sign in/ })
      .click();
    await panel.getByRole('button', { name: 'Replay to this step: Sign in' }).click();
    await expect(status).toHaveText('Replayed 3 of 3 steps', { timeout: 30_000 });
    const welcome = panel.getByRole('application', { name: 'Live browser showing Welcome' });
    await expect(welcome).toBeVisible();
    await expectAccessible(page, '.live-browser');

    // The heading the replay led to, picked and inserted after the chosen step.
    await panel.getByRole('button', { name: 'Pick element' }).click();
    const box = await welcome.getByRole('img').boundingBox();
    if (!box) throw new Error('the screen has no box');
    await page.mouse.click(box.x + (100 * box.width) / 1280, box.y + (315 * box.height) / 720);
    const locators = panel.getByRole('group', { name: 'Locators for the picked element' });
    await expect(locators).toContainText("getByRole('heading', { name: 'Welcome ada' })");
    await locators.getByLabel('Step').selectOption('assertVisible');
    await locators.getByRole('button', { name: 'Insert as step' }).click();
    await expect(stepsList(page).getByRole('button', { name: /^4\. assertVisible/ })).toBeVisible();
    await expect(stepField(page, 'selector')).toHaveValue('internal:role=heading[name="Welcome ada"i]');

    await stepsList(page)
      .getByRole('button', { name: /^5\. Run a script/ })
      .click();
    await panel.getByRole('button', { name: 'Replay to this step: Run a script' }).click();
    await expect(status).toHaveText(
      'Stopped at step 5 "Run a script": evaluate is not replayed in the live browser (scripts run only in a test run)',
      { timeout: 30_000 },
    );
  });
});
