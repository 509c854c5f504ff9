import { expect } from '@playwright/test';
import { editorPath, testDetail } from './authoring-fixtures.ts';
import { createTest, expectAccessible, siteUrl, signedInTest as test, uiRunConfig } from './fixtures.ts';

/**
 * Data sets in the editor: a CSV imported into the test's table is saved with it, and a run of
 * the test shows one result per row, each titled by its row.
 */
test.describe('test editor: data sets', () => {
  const suffix = Date.now().toString(36);

  test('imports a CSV of 3 rows, saves it and runs the test as 3 results named by row', async ({ page }) => {
    test.setTimeout(300_000);
    const name = `greets ${suffix}`;
    const testId = await createTest({
      name,
      config: uiRunConfig(),
      steps: [
        { name: 'open greeter', action: { name: 'goto', url: `${siteUrl()}/greet` } },
        { name: 'type who', action: { name: 'fill', selector: '#who', value: '{{data.who}}' } },
        { name: 'greet', action: { name: 'click', selector: '#go' } },
        { name: 'check', action: { name: 'assertText', selector: '#out', value: '{{data.greeting}}' } },
      ],
      dataSet: { columns: ['who', 'greeting'], rows: [['Zed', 'Hello Zed']] },
    });
    await page.goto(editorPath(testId));
    const panel = page.locator('details.data-set');
    await expect(panel.locator('summary')).toHaveText('Data set (1 rows)');
    await expect(panel.getByLabel('Row 1, who')).toHaveValue('Zed');

    // A file whose column names clash is refused on the table, and the save waits.
    await panel.getByLabel('Import CSV or JSON file (replaces the table)').setInputFiles({
      name: 'clash.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('who,who\nA,B\n'),
    });
    await expect(panel.getByRole('alert')).toHaveText('column "who" appears twice');
    await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();

    await panel.getByLabel('Import CSV or JSON file (replaces the table)').setInputFiles({
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('who,greeting\r\nAda,Hello Ada\r\nBob,Hello Bob\r\n"Cy, Jr.","Hello Cy, Jr."\r\n'),
    });
    await expect(panel.locator('summary')).toHaveText('Data set (3 rows)');
    await expect(panel.getByLabel('Row 3, greeting')).toHaveValue('Hello Cy, Jr.');
    await expect(panel.getByRole('alert')).toHaveCount(0);
    await panel.getByRole('button', { name: 'Add row' }).click();
    await expect(panel.getByLabel('Row 4, who')).toHaveValue('');
    await panel.getByRole('button', { name: 'Remove row 4' }).click();
    await expect(panel.getByRole('combobox', { name: 'Row name column' })).toHaveValue('who');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('All changes saved')).toBeVisible();
    expect((await testDetail(testId)).test.dataSet).toEqual({
      columns: ['who', 'greeting'],
      rows: [
        ['Ada', 'Hello Ada'],
        ['Bob', 'Hello Bob'],
        ['Cy, Jr.', 'Hello Cy, Jr.'],
      ],
    });

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('dialog', { name: 'Run this test' }).getByRole('button', { name: 'Run' }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.locator('[data-status]').first()).toHaveText('completed', { timeout: 240_000 });
    const results = page.getByTestId('test-result');
    await expect(results).toHaveCount(3);
    await expect(results.getByRole('heading', { level: 3 })).toHaveText([
      `${name} [Ada]`,
      `${name} [Bob]`,
      `${name} [Cy, Jr.]`,
    ]);
    await expectAccessible(page);
  });
});
