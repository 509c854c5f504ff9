import { expect } from '@playwright/test';
import { bootstrap, createTest, expectAccessible, mainNav, signedInTest as test } from './fixtures.ts';

/**
 * Issue 14, "axe on every page": the editor's states the flow specs do not reach, each checked
 * for serious or critical violations: every action's form of the palette (fresh, so with its
 * inline errors), a conditional step's fields, a group's "save as shared" choice, and the
 * leave-without-saving question.
 */
test.describe('authoring accessibility', () => {
  const suffix = Date.now().toString(36);

  test('the editor with each step kind\u2019s form open', async ({ page }) => {
    // axe over the whole editor takes seconds on a loaded machine: the whole page once, then
    // each form's part (the step panel) as the forms change only that.
    test.setTimeout(600_000);
    const testId = await createTest({ name: `axe ${suffix}`, steps: [] });
    await page.goto(`/console/projects/${bootstrap().projectId}/tests/${testId}`);
    await expect(page.getByText('No steps yet')).toBeVisible();
    await expectAccessible(page);
    const palette = page.getByRole('region', { name: 'Add a step' });
    const actions = await palette
      .getByRole('button', { name: /^Add / })
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label') ?? ''));
    // The vocabulary's kinds, each with its actions (the contract's step actions).
    expect(actions.length).toBeGreaterThan(20);
    const form = page.getByRole('region', { name: /^Step:/ });
    for (const label of actions) {
      const action = label.replace(/^Add /, '');
      await test.step(`${action}'s form`, async () => {
        await palette.getByRole('button', { name: label, exact: true }).click();
        await expect(form.getByText(`Action: ${action}`, { exact: true })).toBeVisible();
        await expectAccessible(page, '.step-panel');
      });
    }
    await test.step('a conditional step', async () => {
      await form.getByLabel('Condition', { exact: true }).selectOption('if');
      await expect(form.getByLabel('Condition variable')).toBeVisible();
      await expectAccessible(page, '.step-panel');
    });
    await test.step('a group, offered as a shared step', async () => {
      await page
        .getByRole('list', { name: 'Steps', exact: true })
        .getByRole('button', { name: /\. group group/ })
        .first()
        .click();
      await expect(form.getByLabel('Save this group as a shared step')).toBeVisible();
      await expectAccessible(page);
    });
    await test.step('leaving with unsaved changes', async () => {
      await mainNav(page).getByRole('link', { name: 'Tests', exact: true }).click();
      const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
      await expect(leave).toBeVisible();
      await expectAccessible(page);
      await leave.getByRole('button', { name: 'Stay' }).click();
    });
  });
});
