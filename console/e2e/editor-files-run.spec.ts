import { expect } from '@playwright/test';
import { addStep, createTag, editorPath, stepField, stepsList, testDetail } from './authoring-fixtures.ts';
import { apiCall, createTest, expectAccessible, siteUrl, signedInTest as test } from './fixtures.ts';

/** Issue 14, test editor: files for `setInputFiles` uploaded with the save, and Run with a config override. */
test.describe('test editor: files and runs', () => {
  const suffix = Date.now().toString(36);

  test('a setInputFiles step with a file uploaded from the step form runs and passes', async ({ page }) => {
    test.setTimeout(240_000);
    const testId = await createTest({
      name: `uploader ${suffix}`,
      steps: [{ name: 'open uploader', action: { name: 'goto', url: `${siteUrl()}/upload` } }],
    });
    await page.goto(editorPath(testId));
    await stepsList(page)
      .getByRole('button', { name: /^1\. open uploader/ })
      .click();
    await addStep(page, 'setInputFiles');
    await stepField(page, 'selector').fill('#file');
    await page.getByLabel('Upload files for this step').setInputFiles({
      name: 'hello.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hi from the editor'),
    });
    const files = page.getByRole('list', { name: 'Files of this step' });
    await expect(files.getByRole('listitem')).toHaveText('hello.txt uploaded with the next save');
    // The action lists the file by name (the contract's `files` field).
    await expect(stepField(page, 'files (optional)').or(stepField(page, 'files'))).toHaveValue('hello.txt');
    await addStep(page, 'assertText');
    await stepField(page, 'selector').fill('#out');
    await stepField(page, 'value').fill('hello.txt: hi from the editor');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('All changes saved')).toBeVisible();

    const stored = await apiCall('GET', `/v1/tests/${testId}/files`);
    expect(stored.json.data.map((file: { filename: string }) => file.filename)).toEqual(['hello.txt']);
    await stepsList(page)
      .getByRole('button', { name: /^2\. setInputFiles/ })
      .click();
    await expect(files.getByRole('listitem')).toHaveText('hello.txt stored');

    // Run with an override for this run only: the contract's limits hold the Run button back.
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const runDialog = page.getByRole('dialog', { name: 'Run this test' });
    await runDialog.getByText('Override for this run').click();
    await runDialog.getByLabel('Retries').fill('11');
    await expect(runDialog.getByLabel('Retries')).toHaveAttribute('aria-invalid', 'true');
    await expect(runDialog.getByRole('button', { name: 'Run' })).toBeDisabled();
    await runDialog.getByLabel('Retries').fill('');
    await runDialog.getByLabel('Action timeout (ms, 0 = 60000)').fill('20000');
    await expectAccessible(page);
    await runDialog.getByRole('button', { name: 'Run' }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    const runId = new URL(page.url()).pathname.split('/').pop() as string;
    expect((await apiCall('GET', `/v1/test-runs/${runId}`)).json.data.config).toMatchObject({
      use: { actionTimeout: 20000 },
    });
    // The test's own configuration is unchanged by the override.
    expect((await testDetail(testId)).test.config).toEqual({});
    await expect(page.locator('[data-status]').first()).toHaveText('completed', { timeout: 150_000 });
    expect((await testDetail(testId)).steps.map((step: { name: string }) => step.name)).toHaveLength(3);
  });

  test('manages shared steps: usage first, rename, delete refused while used (listing users), delete when unused', async ({
    page,
  }) => {
    const usedName = `kept ${suffix}`;
    const holderId = await createTest({
      name: `holder ${suffix}`,
      steps: [{ name: usedName, shared: true, action: { name: 'goto', url: '/page' } }],
    });
    const sharedId = (await testDetail(holderId)).steps[0].stepId as string;
    // A shared step whose only user is deleted stays, unused.
    const unusedName = `orphan ${suffix}`;
    const goneId = await createTest({
      name: `gone ${suffix}`,
      steps: [{ name: unusedName, shared: true, action: { name: 'goto', url: '/page' } }],
    });
    const orphanId = (await testDetail(goneId)).steps[0].stepId as string;
    expect((await apiCall('DELETE', `/v1/tests/${goneId}`)).status).toBe(200);

    const editorOf = await createTest({ name: `manager ${suffix}`, steps: [] });
    await page.goto(editorPath(editorOf));
    await page.getByLabel('Shared step', { exact: true }).selectOption({ label: usedName });
    await page.getByRole('button', { name: 'Manage shared step…' }).click();
    const dialog = page.getByRole('dialog', { name: `Shared step ${usedName}` });
    await expect(dialog.getByText(`Used by 1 test on this branch: holder ${suffix}.`)).toBeVisible();
    await expect(dialog.getByText(/copy-on-write/)).toBeVisible();
    await expectAccessible(page);
    await dialog.getByLabel('Name').fill(`renamed ${suffix}`);
    await dialog.getByRole('button', { name: 'Rename shared step' }).click();
    await expect(dialog.getByRole('status')).toHaveText(`Renamed to renamed ${suffix}`);
    expect((await apiCall('GET', `/v1/steps/${sharedId}`)).json.data.name).toBe(`renamed ${suffix}`);

    await dialog.getByRole('button', { name: 'Delete shared step' }).click();
    const refusal = dialog.getByRole('alert');
    await expect(refusal).toContainText('Not deleted (400)');
    await expect(refusal).toContainText('Step is still used by tests and cannot be deleted');
    await expect(refusal.getByRole('list', { name: 'Still used by' }).getByRole('listitem')).toHaveText([
      new RegExp(`^holder ${suffix} \\(branch .+\\)$`),
    ]);
    expect((await apiCall('GET', `/v1/steps/${sharedId}`)).status).toBe(200);
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByLabel('Shared step', { exact: true }).selectOption({ label: unusedName });
    await page.getByRole('button', { name: 'Manage shared step…' }).click();
    const orphan = page.getByRole('dialog', { name: `Shared step ${unusedName}` });
    await expect(orphan.getByText('Used by 0 tests on this branch.')).toBeVisible();
    await orphan.getByRole('button', { name: 'Delete shared step' }).click();
    await expect(orphan).toBeHidden();
    expect((await apiCall('GET', `/v1/steps/${orphanId}`)).status).toBe(404);
    await expect(
      page.getByLabel('Shared step', { exact: true }).getByRole('option', { name: unusedName }),
    ).toHaveCount(0);
  });

  test('edits the test\u2019s vars and parameters as rows and its tags as checkboxes, holding the save while a row is wrong', async ({
    page,
  }) => {
    const tagId = await createTag(page, `data tag ${suffix}`);
    const testId = await createTest({ name: `data ${suffix}`, steps: [], parameters: { size: 3 } });
    await page.goto(editorPath(testId));
    await page.getByText('Vars, parameters and tags').click();
    const vars = page.getByRole('group', { name: 'Vars' });
    await vars.getByRole('button', { name: 'Add var' }).click();
    // A value without a name is named as the problem, and the save waits.
    await vars.getByLabel('var 1 value').fill('Ada');
    await expect(vars.getByLabel('var 1 value')).toHaveAttribute('aria-invalid', 'true');
    await expect(vars.getByText('a value needs a name')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
    await vars.getByLabel('var 1 name').fill('who');
    await expect(vars.getByLabel('var 1 value')).not.toHaveAttribute('aria-invalid', 'true');
    // A parameter that was a number stays JSON; "Import JSON" replaces the rows.
    const parameters = page.getByRole('group', { name: 'Parameters' });
    await expect(parameters.getByLabel('parameter 1 value (JSON)')).toHaveValue('3');
    await parameters.getByText('Import JSON').click();
    await parameters.getByLabel('A JSON object replacing the rows above').fill('[1]');
    await parameters.getByRole('button', { name: 'Import' }).click();
    await expect(parameters.getByText('must be a JSON object')).toBeVisible();
    await parameters
      .getByLabel('A JSON object replacing the rows above')
      .fill('{"size": 4, "colour": "red"}');
    await parameters.getByRole('button', { name: 'Import' }).click();
    await expect(parameters.getByLabel('parameter 2 name')).toHaveValue('colour');
    await parameters.getByRole('button', { name: 'Remove parameter 2' }).click();
    // Tags: a visible, labelled list of checkboxes.
    await page
      .getByRole('group', { name: 'Tags' })
      .getByRole('checkbox', { name: `data tag ${suffix}` })
      .check();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('All changes saved')).toBeVisible();
    const saved = (await testDetail(testId)).test;
    expect(saved.vars).toEqual({ who: 'Ada' });
    expect(saved.parameters).toEqual({ size: 4 });
    expect(saved.tags.map((tag: { id: string }) => tag.id)).toEqual([tagId]);
  });
});
