import { expect } from '@playwright/test';
import { editorPath, stepField, stepsList } from './authoring-fixtures.ts';
import { createTest, expectAccessible, siteUrl, signedInTest as test } from './fixtures.ts';

/**
 * The live browser of the test editor: a real Chromium started by the service, streamed into
 * the page, an element picked by pointing at it, and its locator inserted as a step.
 */
test.describe('live browser', () => {
  test('opens the test’s page, picks an element and inserts it as an unsaved step', async ({ page }) => {
    test.setTimeout(180_000);
    const testId = await createTest({
      name: `live ${Date.now().toString(36)}`,
      steps: [],
      config: { use: { baseURL: `${siteUrl()}/greet` } },
    });
    await page.goto(editorPath(testId));
    await page.getByRole('button', { name: 'Open live browser' }).click();

    const panel = page.getByRole('region', { name: 'Live browser' });
    // Frames arrive: the screen shows the page and names it.
    const screen = panel.getByRole('application', { name: 'Live browser showing Greeter' });
    await expect(screen).toBeVisible({ timeout: 60_000 });
    await expect(screen.getByRole('img', { name: 'The page Greeter' })).toHaveAttribute('src', /^blob:/);
    await expect(panel.getByLabel('Address')).toHaveValue(`${siteUrl()}/greet`);
    await expectAccessible(page, '.live-browser');

    // Pick the text field (x 120 in the page's CSS pixels: past the "Who" label, inside the input).
    const pick = panel.getByRole('button', { name: 'Pick element' });
    await pick.click();
    await expect(pick).toHaveAttribute('aria-pressed', 'true');
    const box = await screen.getByRole('img').boundingBox();
    if (!box) throw new Error('the screen has no box');
    await page.mouse.click(box.x + (120 * box.width) / 1280, box.y + (18 * box.height) / 720);

    const locators = panel.getByRole('group', { name: 'Locators for the picked element' });
    const first = locators.getByRole('radio').first();
    await expect(first).toBeChecked();
    await expect(locators).toContainText("getByRole('textbox', { name: 'Who' })");
    await expect(locators).toContainText("getByLabel('Who')");
    await expect(locators).toContainText('matches 1 element');
    await expectAccessible(page, '.live-browser');

    await locators.getByLabel('Step').selectOption('fill');
    await locators.getByLabel('Value').fill('Ada');
    await locators.getByRole('button', { name: 'Insert as step' }).click();

    // The step is in the editor, selected, unsaved.
    await expect(stepsList(page).getByRole('button', { name: /^1\. fill/ })).toBeVisible();
    await expect(stepField(page, 'selector')).toHaveValue('internal:role=textbox[name="Who"i]');
    await expect(stepField(page, 'value')).toHaveValue('Ada');
    await expect(page.getByText('Unsaved changes')).toBeVisible();

    await panel.getByRole('button', { name: 'Close live browser' }).click();
    await expect(page.getByRole('button', { name: 'Open live browser' })).toBeVisible();
  });
});
