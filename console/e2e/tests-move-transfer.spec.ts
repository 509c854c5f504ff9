import { readFile, writeFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import yazl from 'yazl';
import { createDirectory, testDetail } from './authoring-fixtures.ts';
import { createTest, expectAccessible, mainNav, signedInTest as test } from './fixtures.ts';

/** Issue 14, tests tree: move (dialog, keyboard, selection, drag) and export/import round trip. */
test.describe('tests tree: move, export and import', () => {
  const suffix = Date.now().toString(36);
  test.beforeEach(async ({ page }) => {
    await mainNav(page).getByRole('link', { name: 'Tests', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Tests', exact: true })).toBeVisible();
  });

  const row = (page: Page, name: string) =>
    page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader').filter({ hasText: new RegExp(`^[▸▾]?${name}(/| |$)`) }) });

  test('moves a test with the keyboard only, refusing a directory into its own subtree', async ({ page }) => {
    const target = await createDirectory(`target ${suffix}`);
    const outer = await createDirectory(`outer ${suffix}`);
    const inner = await createDirectory(`inner ${suffix}`, outer);
    const leaf = await createTest({ name: `mover ${suffix}`, steps: [] });
    await page.reload();

    await page.getByRole('button', { name: `Move mover ${suffix}` }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Move mover ${suffix}` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('radio', { name: '(top level)' })).toBeFocused();
    await expectAccessible(page);
    // Arrow keys walk the directories (radio buttons) until the target is chosen.
    const choice = dialog.getByRole('radio', { name: `target ${suffix}/` });
    for (let step = 0; step < 200 && !(await choice.isChecked()); step += 1)
      await page.keyboard.press('ArrowDown');
    await expect(choice).toBeChecked();
    await page.keyboard.press('Tab');
    await expect(dialog.getByRole('button', { name: 'Move' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').first()).toHaveText(`Moved mover ${suffix} to target ${suffix}`);
    expect((await testDetail(leaf)).test.parentTestId).toBe(target);
    await expect(row(page, `target ${suffix}`)).toContainText('(1)');

    // A directory cannot be moved into itself or below itself: those choices are disabled.
    await page.getByRole('button', { name: `Move outer ${suffix}` }).click();
    const outerDialog = page.getByRole('dialog', { name: `Move outer ${suffix}` });
    await expect(outerDialog.getByRole('radio', { name: `outer ${suffix}/` })).toBeDisabled();
    await expect(outerDialog.getByRole('radio', { name: `inner ${suffix}/` })).toBeDisabled();
    await outerDialog.getByRole('radio', { name: `target ${suffix}/` }).check();
    await outerDialog.getByRole('button', { name: 'Move' }).click();
    await expect(outerDialog).toBeHidden();
    expect((await testDetail(outer)).test.parentTestId).toBe(target);
    expect((await testDetail(inner)).test.parentTestId).toBe(outer);
  });

  test('moves the selection, and a row dragged onto a directory', async ({ page }) => {
    const home = await createDirectory(`home ${suffix}`);
    const first = await createTest({ name: `first ${suffix}`, steps: [] });
    const second = await createTest({ name: `second ${suffix}`, steps: [] });
    const dragged = await createTest({ name: `dragged ${suffix}`, steps: [] });
    await page.reload();

    await page.getByRole('checkbox', { name: `Select first ${suffix}` }).check();
    await page.getByRole('checkbox', { name: `Select second ${suffix}` }).check();
    await page.getByRole('button', { name: 'Move selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move 2 tests' });
    await dialog.getByRole('radio', { name: `home ${suffix}/` }).check();
    await dialog.getByRole('button', { name: 'Move' }).click();
    await expect(dialog).toBeHidden();
    expect((await testDetail(first)).test.parentTestId).toBe(home);
    expect((await testDetail(second)).test.parentTestId).toBe(home);
    await expect(row(page, `home ${suffix}`)).toContainText('(2)');

    await row(page, `dragged ${suffix}`).dragTo(row(page, `home ${suffix}`));
    await expect(page.getByRole('status').first()).toHaveText(`Moved dragged ${suffix} to home ${suffix}`);
    expect((await testDetail(dragged)).test.parentTestId).toBe(home);
    await expect(row(page, `home ${suffix}`)).toContainText('(3)');
  });

  test('exports a directory and imports the ZIP back, showing counts and per-entry errors', async ({
    page,
  }, testInfo) => {
    const directory = await createDirectory(`shipped ${suffix}`);
    await createTest({
      name: `packed one ${suffix}`,
      parentTestId: directory,
      steps: [{ name: 'open', action: { name: 'goto', url: '/page' } }],
    });
    await createTest({ name: `packed two ${suffix}`, parentTestId: directory, steps: [] });
    await page.reload();

    await page.getByRole('button', { name: 'Export…' }).click();
    const exportDialog = page.getByRole('dialog', { name: 'Export tests' });
    await exportDialog.getByRole('radio', { name: 'A directory and everything inside' }).check();
    await exportDialog.getByLabel('Directory', { exact: true }).selectOption({ label: `shipped ${suffix}` });
    await expectAccessible(page);
    const downloading = page.waitForEvent('download');
    await exportDialog.getByRole('button', { name: 'Download ZIP' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('service-tests.zip');
    const zipPath = testInfo.outputPath('export.zip');
    await download.saveAs(zipPath);
    expect((await readFile(zipPath)).subarray(0, 2).toString()).toBe('PK');
    await expect(exportDialog).toBeHidden();

    // The Playwright format downloads too (a ZIP of scripts).
    await page.getByRole('button', { name: 'Export…' }).click();
    await exportDialog.getByRole('radio', { name: 'A directory and everything inside' }).check();
    await exportDialog.getByLabel('Directory', { exact: true }).selectOption({ label: `shipped ${suffix}` });
    await exportDialog.getByRole('radio', { name: 'Playwright scripts (pw)' }).check();
    const pwDownloading = page.waitForEvent('download');
    await exportDialog.getByRole('button', { name: 'Download ZIP' }).click();
    const pw = await pwDownloading;
    expect((await readFile(await pw.path())).subarray(0, 2).toString()).toBe('PK');

    await page.getByRole('button', { name: 'Import…' }).click();
    const importDialog = page.getByRole('dialog', { name: 'Import tests' });
    await importDialog.getByLabel('ZIP from an export').setInputFiles(zipPath);
    await importDialog.getByRole('button', { name: 'Import' }).click();
    await expect(importDialog.getByRole('status')).toContainText('Imported 3 tests, 1 steps');
    await expect(importDialog.getByRole('list', { name: 'Import errors' })).toBeHidden();
    await expectAccessible(page);
    await importDialog.getByRole('button', { name: 'Close' }).click();
    // The round trip: the directory and both tests exist twice now, the copy with its step.
    await expect(row(page, `shipped ${suffix}`)).toHaveCount(2);
    // Directories list their children when expanded: open both.
    const expand = page.getByRole('button', { name: `Expand shipped ${suffix}` });
    await expect(expand).toHaveCount(2);
    await expand.first().click();
    await expect(expand).toHaveCount(1);
    await expand.first().click();
    await expect(page.getByRole('link', { name: `packed one ${suffix}` })).toHaveCount(2);

    // An archive with one bad entry: the good one comes in, the bad one is named with its reason.
    const brokenPath = testInfo.outputPath('broken.zip');
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(JSON.stringify({ formatVersion: 1, tests: [] })), 'manifest.json');
    zip.addBuffer(
      Buffer.from(JSON.stringify({ id: 'a', name: `good ${suffix}`, parentId: null })),
      'tests/good.json',
    );
    zip.addBuffer(Buffer.from(JSON.stringify({ id: 'b', name: 'bad', config: 'fast' })), 'tests/bad.json');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    await writeFile(brokenPath, Buffer.concat(chunks));
    await page.getByRole('button', { name: 'Import…' }).click();
    await importDialog.getByLabel('ZIP from an export').setInputFiles(brokenPath);
    await importDialog.getByRole('button', { name: 'Import' }).click();
    await expect(importDialog.getByRole('status')).toContainText('Imported 1 tests');
    const problems = importDialog.getByRole('list', { name: 'Import errors' });
    await expect(problems.getByRole('listitem')).toHaveCount(1);
    await expect(problems).toContainText('tests/bad.json');
    await expect(problems).toContainText('config');
    await importDialog.getByRole('button', { name: 'Close' }).click();
    await expect(page.getByRole('link', { name: `good ${suffix}` })).toBeVisible();
  });
});
