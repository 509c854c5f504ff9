import { expect, type Page } from '@playwright/test';
import { addStep, editorPath, stepField, stepsList, testDetail } from './authoring-fixtures.ts';
import { apiCall, createTest, expectAccessible, mainNav, siteUrl, signedInTest as test } from './fixtures.ts';

/**
 * Issue 14, test editor: a test built from nothing with the editor (goto, fill, click,
 * assertText, a group saved as a shared step, an inserted shared step, a setInputFiles upload),
 * run to pass; a step edited to fail, the failure read on the run page; field errors
 * from the contract and the API; keyboard reordering; a 409 from a second tab; revisions.
 */
test.describe('test editor', () => {
  const suffix = Date.now().toString(36);

  const saveAndWait = async (page: Page) => {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('All changes saved')).toBeVisible();
  };
  const branchSelect = (page: Page) => page.getByRole('banner').getByRole('combobox', { name: /^Branch/ });
  const testId = (page: Page) => new URL(page.url()).pathname.split('/').pop() as string;
  const runAndExpect = async (page: Page, status: 'completed' | 'failed') => {
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    // The run dialog (optional override, left empty here) starts it.
    await page.getByRole('dialog', { name: 'Run this test' }).getByRole('button', { name: 'Run' }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.locator('[data-status]').first()).toHaveText(status, { timeout: 150_000 });
  };

  test('builds a test from nothing, runs it to pass, then edits a step to fail', async ({ page }) => {
    // Two real browser runs on a loaded 2-core machine, after a long edit.
    test.setTimeout(360_000);
    // A shared step made elsewhere, inserted from the palette below.
    const uploaderName = `open uploader ${suffix}`;
    await createTest({
      name: `uploader owner ${suffix}`,
      steps: [{ name: uploaderName, shared: true, action: { name: 'goto', url: `${siteUrl()}/upload` } }],
    });
    await mainNav(page).getByRole('link', { name: 'Tests', exact: true }).click();
    await page.getByRole('button', { name: 'New test' }).click();
    const dialog = page.getByRole('dialog', { name: 'New test' });
    await dialog.getByLabel('Name').fill(`built ${suffix}`);
    await dialog.getByLabel('Status').selectOption('active');
    await dialog.getByRole('button', { name: 'Create test' }).click();
    // The new test opens in the editor.
    await expect(page.getByRole('heading', { name: `Edit built ${suffix}` })).toBeVisible();
    await expect(page.getByText('No steps yet')).toBeVisible();

    await addStep(page, 'goto');
    await stepField(page, 'url').fill(`${siteUrl()}/greet`);
    await stepField(page, 'Step name').fill('open greeter');
    await addStep(page, 'fill');
    // The contract's check, as you type: a required selector left empty is named on its field.
    await expect(page.getByText('selector must not be empty')).toBeVisible();
    await expect(stepField(page, 'selector')).toHaveAttribute('aria-invalid', 'true');
    await stepField(page, 'selector').fill('#who');
    await stepField(page, 'value').fill('Ada');
    await expect(page.getByText('selector must not be empty')).toHaveCount(0);
    await addStep(page, 'group');
    await stepField(page, 'Step name').fill(`greet ${suffix}`);
    await page.getByLabel('Save this group as a shared step').check();
    // A step added while a group is chosen goes into the group.
    await addStep(page, 'click');
    await stepField(page, 'selector').fill('#go');
    await stepsList(page)
      .getByRole('button', { name: /^1\. open greeter/ })
      .click();
    await addStep(page, 'assertText');
    await stepField(page, 'selector').fill('#out');
    await stepField(page, 'value').fill('Hello Ada');
    await expectAccessible(page);

    // assertText went in after the goto: keyboard only, Alt+↓ twice puts it after the group.
    const assertButton = stepsList(page).getByRole('button', { name: /^2\. assertText/ });
    await assertButton.focus();
    await page.keyboard.press('Alt+ArrowDown');
    await expect(stepsList(page).getByRole('button', { name: /^3\. assertText/ })).toBeFocused();
    await page.keyboard.press('Alt+ArrowDown');
    await expect(stepsList(page).getByRole('button', { name: /^4\. assertText/ })).toBeFocused();
    await expect(page.getByRole('status')).toHaveText('Moved assertText down');
    await expect(stepsList(page).getByRole('button', { name: /^3\.1\. click/ })).toBeVisible();

    // Then, after the chosen assertText: the inserted shared step (another page) and an upload there.
    await page.getByLabel('Shared step', { exact: true }).selectOption({ label: uploaderName });
    await page.getByRole('button', { name: 'Insert shared step' }).click();
    await expect(
      stepsList(page).getByRole('button', { name: new RegExp(`^5\\. ${uploaderName} group, shared`) }),
    ).toBeVisible();
    await expectAccessible(page);
    await addStep(page, 'setInputFiles');
    await stepField(page, 'selector').fill('#file');
    await page.getByLabel('Upload files for this step').setInputFiles({
      name: 'built.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('built from nothing'),
    });
    await expect(page.getByRole('list', { name: 'Files of this step' }).getByRole('listitem')).toHaveText(
      'built.txt uploaded with the next save',
    );
    await expectAccessible(page);
    await addStep(page, 'assertText');
    await stepField(page, 'Step name').fill('uploaded');
    await stepField(page, 'selector').fill('#out');
    await stepField(page, 'value').fill('built.txt: built from nothing');
    await expect(stepsList(page).getByRole('button')).toHaveText([
      /^1\. open greeter goto/,
      /^2\. fill fill/,
      new RegExp(`^3\\. greet ${suffix} group`),
      /^3\.1\. click click/,
      /^4\. assertText assertText/,
      new RegExp(`^5\\. ${uploaderName}`),
      /^6\. setInputFiles setInputFiles/,
      /^7\. uploaded assertText/,
    ]);

    // Run configuration: the contract's limits named on the field; a short action timeout.
    await page.getByText('Run configuration').click();
    await page.getByLabel('Retries').fill('11');
    await expect(page.getByLabel('Retries')).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('Retries').fill('');
    await page.getByLabel('Action timeout (ms, 0 = 60000)').fill('10000');
    await expectAccessible(page);

    await saveAndWait(page);
    expect((await testDetail(testId(page))).test.config).toEqual({ use: { actionTimeout: 10000 } });
    const stored = await apiCall('GET', `/v1/tests/${testId(page)}/files`);
    expect(stored.json.data.map((file: { filename: string }) => file.filename)).toEqual(['built.txt']);
    expect(
      (await testDetail(testId(page))).steps.map((step: { action: { name: string } }) => step.action.name),
    ).toEqual(['goto', 'fill', 'group', 'assertText', 'goto', 'setInputFiles', 'assertText']);
    await expect(
      stepsList(page).getByRole('button', { name: new RegExp(`^3\\. greet ${suffix} group, shared`) }),
    ).toBeVisible();
    await runAndExpect(page, 'completed');

    await page.goBack();
    await stepsList(page)
      .getByRole('button', { name: /^4\. assertText/ })
      .click();
    await stepField(page, 'value').fill('Hello Bob');
    await saveAndWait(page);
    // Saving again keeps referencing the one shared step the first save made.
    const shared = await apiCall('GET', `/v1/steps/shared?search=${encodeURIComponent(`greet ${suffix}`)}`);
    expect(shared.json.data).toHaveLength(1);
    // The spec's 10 s per-test cooldown between runs (a quick first run would meet its 429).
    await page.waitForTimeout(10_500);
    await runAndExpect(page, 'failed');
    // The run page names the failing step and what it expected.
    const card = page.getByTestId('test-result').first();
    await expect(card.locator('.error-message').first()).toContainText('Hello Bob');
    await expect(card.getByText('Failing step:')).toBeVisible();
    await expect(card.locator('.steps li[data-status="failed"]')).toContainText('assertText');
    await expectAccessible(page);
  });

  test('inserts a shared step, shows its usage, and shows the API error on the field', async ({ page }) => {
    const sharedName = `login ${suffix}`;
    const ownerId = await createTest({
      name: `owner ${suffix}`,
      steps: [
        {
          name: sharedName,
          shared: true,
          action: { name: 'group' },
          children: [{ name: 'open', action: { name: 'goto', url: '/page' } }],
        },
      ],
    });
    const userId = await createTest({ name: `user ${suffix}`, steps: [] });
    await page.goto(editorPath(userId));
    await page.getByLabel('Shared step', { exact: true }).selectOption({ label: sharedName });
    await page.getByRole('button', { name: 'Insert shared step' }).click();
    await expect(page.getByText('Used by 1 test on this branch')).toBeVisible();
    await expect(page.getByText(`owner ${suffix}`)).toBeVisible();
    await expect(page.getByText('copy-on-write')).toBeVisible();
    await saveAndWait(page);
    await stepsList(page)
      .getByRole('button', { name: new RegExp(`^1\\. ${sharedName}`) })
      .click();
    await expect(page.getByText('Used by 2 tests on this branch')).toBeVisible();
    expect((await testDetail(ownerId)).steps[0].stepId).toBe((await testDetail(userId)).steps[0].stepId);

    // An assertCount with a value the contract accepts as typed but the API refuses (negative).
    await addStep(page, 'assertCount');
    await stepField(page, 'selector').fill('li');
    await stepField(page, 'value').fill('-1');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not save (400)' })).toBeVisible();
    await expect(stepField(page, 'value')).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page);
  });

  test('a save over a second tab\u2019s save asks which to keep', async ({ page, context }) => {
    const testId = await createTest({
      name: `conflict ${suffix}`,
      steps: [{ name: 'open', action: { name: 'goto', url: '/page' } }],
    });
    await page.goto(editorPath(testId));
    const other = await context.newPage();
    await other.goto(editorPath(testId));
    await other.getByRole('button', { name: /^1\. open/ }).click();
    await other
      .getByRole('region', { name: /^Step:/ })
      .getByLabel('Step name', { exact: true })
      .fill('theirs');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(other.getByText('All changes saved')).toBeVisible();

    await stepsList(page)
      .getByRole('button', { name: /^1\. open/ })
      .click();
    await stepField(page, 'Step name').fill('mine');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const conflict = page.getByRole('dialog', { name: 'This test changed since you opened it' });
    await expect(conflict).toBeVisible();
    await expectAccessible(page);
    await conflict.getByRole('button', { name: 'Reload their version' }).click();
    await expect(stepsList(page).getByRole('button', { name: /^1\. theirs/ })).toBeVisible();

    await stepsList(page)
      .getByRole('button', { name: /^1\. theirs/ })
      .click();
    await stepField(page, 'Step name').fill('mine');
    await other.reload();
    await other.getByRole('button', { name: /^1\. theirs/ }).click();
    await other
      .getByRole('region', { name: /^Step:/ })
      .getByLabel('Step name', { exact: true })
      .fill('theirs again');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(other.getByText('All changes saved')).toBeVisible();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await conflict.getByRole('button', { name: 'Overwrite with mine' }).click();
    await expect(page.getByText('All changes saved')).toBeVisible();
    expect((await testDetail(testId)).steps[0].name).toBe('mine');

    // Leaving with unsaved changes asks first.
    await stepsList(page)
      .getByRole('button', { name: /^1\. mine/ })
      .click();
    await stepField(page, 'Step name').fill('unsaved');
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.getByRole('button', { name: 'Stay' }).click();
    await expect(page.getByRole('heading', { name: `Edit conflict ${suffix}` })).toBeVisible();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await leave.getByRole('button', { name: 'Leave' }).click();
    await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  });

  test('saves a revision, shows it read-only with its diff, and restores it', async ({ page }) => {
    const testId = await createTest({
      name: `revisions ${suffix}`,
      steps: [{ name: 'first', action: { name: 'goto', url: '/page' } }],
    });
    await page.goto(editorPath(testId));
    const revisions = page.getByRole('region', { name: 'Revisions' });
    await revisions.getByLabel('Revision message').fill('the first version');
    await revisions.getByRole('button', { name: 'Save revision' }).click();
    await expect(revisions.getByRole('button', { name: 'the first version' })).toBeVisible();
    // Nothing changed since: the API's 400 says so.
    await revisions.getByLabel('Revision message').fill('again');
    await revisions.getByRole('button', { name: 'Save revision' }).click();
    await expect(revisions.getByRole('alert')).toContainText('Revision not saved (400)');

    await stepsList(page)
      .getByRole('button', { name: /^1\. first/ })
      .click();
    await stepField(page, 'Step name').fill('second');
    await expect(revisions.getByRole('button', { name: 'Save revision' })).toBeDisabled();
    await saveAndWait(page);
    await revisions.getByRole('button', { name: 'Save revision' }).click();
    const history = revisions.getByRole('list', { name: 'Revision history, newest first' });
    await expect(history.getByRole('listitem')).toHaveCount(2);
    await expect(history.getByRole('listitem').first()).toContainText('again');

    await revisions.getByRole('button', { name: 'the first version' }).click();
    const view = page.getByRole('dialog', { name: 'Revision: the first version' });
    await expect(view.getByRole('button', { name: /^1\. first/ })).toBeVisible();
    const diff = view.getByRole('list', { name: 'Differences from the working state' });
    await expect(diff.getByRole('listitem').filter({ hasText: 'removed: 1. first' })).toBeVisible();
    await expect(diff.getByRole('listitem').filter({ hasText: 'added: 1. second' })).toBeVisible();
    await expectAccessible(page);
    await view.getByRole('button', { name: 'Restore this revision' }).click();
    await expect(view).toBeHidden();
    await expect(stepsList(page).getByRole('button', { name: /^1\. first/ })).toBeVisible();
    expect((await testDetail(testId)).steps[0].name).toBe('first');
  });

  test('creates a branch; the editor edits that branch, the default keeps its own', async ({ page }) => {
    const testId = await createTest({
      name: `branched ${suffix}`,
      steps: [{ name: 'on default', action: { name: 'goto', url: '/page' } }],
    });
    await mainNav(page).getByRole('link', { name: 'Tests', exact: true }).click();
    await page.getByRole('button', { name: 'New branch' }).click();
    const dialog = page.getByRole('dialog', { name: 'New branch' });
    await dialog.getByLabel('Branch name').fill(`feature-${suffix}`);
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Create branch' }).click();
    await expect(page).toHaveURL(/[?&]branch=[0-9a-f-]{36}/);
    const branchId = new URL(page.url()).searchParams.get('branch') as string;
    await expect(branchSelect(page)).toHaveValue(branchId);

    await page.getByRole('link', { name: `branched ${suffix}` }).click();
    await stepsList(page)
      .getByRole('button', { name: /^1\. on default/ })
      .click();
    await stepField(page, 'Step name').fill('on branch');
    await saveAndWait(page);
    expect((await testDetail(testId)).steps[0].name).toBe('on default');
    const onBranch = await apiCall('GET', `/v1/tests/${testId}`, undefined, { 'x-branch-id': branchId });
    expect(onBranch.json.steps[0].name).toBe('on branch');

    // Switching branch in the header opens the default's working state.
    const defaultOption = page
      .getByRole('banner')
      .getByRole('combobox', { name: /^Branch/ })
      .locator('option')
      .first();
    await branchSelect(page).selectOption((await defaultOption.getAttribute('value')) as string);
    await expect(stepsList(page).getByRole('button', { name: /^1\. on default/ })).toBeVisible();
  });
});
