import { expect } from '@playwright/test';
import { editorPath } from './authoring-fixtures.ts';
import { createTest, expectAccessible, signedInTest as test, waitingTest } from './fixtures.ts';

/** The editor's Run configuration panel reads as a form: labels in one column, controls in the next. */
test('the run configuration lines its labels and controls up in two columns', async ({ page }) => {
  const testId = await createTest(waitingTest(`run config layout ${Date.now().toString(36)}`, 10));
  await page.goto(editorPath(testId));
  const panel = page.locator('details.run-config');
  await panel.getByText('Run configuration').click();
  const labels = ['Base URL', 'Browser', 'Trace', 'Action timeout (ms, 0 = 60000)', 'Workers'];
  const controlEdges = new Set<number>();
  const labelEdges = new Set<number>();
  for (const name of labels) {
    const control = panel.getByLabel(name, { exact: true });
    const label = panel
      .locator('label')
      .filter({ hasText: new RegExp(`^${name.replace(/[()]/g, '\\$&')}$`) });
    const [box, labelBox] = [await control.boundingBox(), await label.boundingBox()];
    if (!box || !labelBox) throw new Error(`${name} is not shown`);
    controlEdges.add(Math.round(box.x));
    labelEdges.add(Math.round(labelBox.x));
    // Each label sits on its control's line.
    expect(Math.abs(labelBox.y + labelBox.height / 2 - (box.y + box.height / 2)), name).toBeLessThan(
      box.height,
    );
  }
  expect([...controlEdges], 'every control starts at the same x').toHaveLength(1);
  expect([...labelEdges], 'every label starts at the same x').toHaveLength(1);
  // A field's error goes under its control, not under its label.
  await panel.getByLabel('Workers', { exact: true }).fill('0');
  const error = panel.locator('.field-error');
  await expect(error).toBeVisible();
  expect(Math.round((await error.boundingBox())?.x ?? -1)).toBe([...controlEdges][0]);
  await panel.screenshot({ path: 'test-results/screens/run-config.png' });
  await expectAccessible(page);
});
