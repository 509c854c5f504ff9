import { expect, type Page } from '@playwright/test';
import { createDirectory, createSchedule, createTag, testDetail } from './authoring-fixtures.ts';
import { createTest, expectAccessible, mainNav, signedInTest as test, waitingTest } from './fixtures.ts';

/** Issue 14, tests tree: create, rename, duplicate, delete (naming what goes), filters, bulk actions. */
test.describe('tests tree', () => {
  const suffix = Date.now().toString(36);
  test.beforeEach(async ({ page }) => {
    await mainNav(page).getByRole('link', { name: 'Tests', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Tests', exact: true })).toBeVisible();
  });

  /** The row whose name cell starts with the name (a directory's with its fold arrow). */
  const row = (page: Page, name: string) =>
    page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader').filter({ hasText: new RegExp(`^[▸▾]?${name}(/| |$)`) }) });

  test('creates, renames, duplicates and deletes tests and directories', async ({ page }) => {
    await page.getByRole('button', { name: 'New directory' }).click();
    const createDir = page.getByRole('dialog', { name: 'New directory' });
    await createDir.getByLabel('Name').fill(`dir ${suffix}`);
    await createDir.getByRole('button', { name: 'Create directory' }).click();
    await expect(createDir).toBeHidden();
    await expect(page.getByText(`dir ${suffix}/`)).toBeVisible();

    await page.getByRole('button', { name: 'New test' }).click();
    const createLeaf = page.getByRole('dialog', { name: 'New test' });
    await createLeaf.getByLabel('Name').fill(`leaf ${suffix}`);
    await createLeaf.getByLabel('In directory').selectOption({ label: `dir ${suffix}` });
    await expectAccessible(page);
    await createLeaf.getByRole('button', { name: 'Create test' }).click();
    // A new test opens in the editor; back on the tree it sits in its directory.
    await expect(page.getByRole('heading', { level: 1, name: `Edit leaf ${suffix}` })).toBeVisible();
    await page.goBack();
    await expect(page.getByRole('link', { name: `leaf ${suffix}` })).toBeVisible();
    // The directory counts its child, and folds.
    await expect(row(page, `dir ${suffix}`)).toContainText('(1)');
    await page.getByRole('button', { name: `Collapse dir ${suffix}` }).click();
    await expect(page.getByRole('link', { name: `leaf ${suffix}` })).toBeHidden();
    await page.getByRole('button', { name: `Expand dir ${suffix}` }).click();
    await expect(page.getByRole('link', { name: `leaf ${suffix}` })).toBeVisible();

    await page.getByRole('button', { name: `Rename leaf ${suffix}` }).click();
    const rename = page.getByRole('dialog', { name: `Rename leaf ${suffix}` });
    await rename.getByLabel('New name').fill(`renamed ${suffix}`);
    await rename.getByRole('button', { name: 'Rename' }).click();
    await expect(page.getByRole('link', { name: `renamed ${suffix}` })).toBeVisible();

    await page.getByRole('button', { name: `Duplicate renamed ${suffix}` }).click();
    await expect(page.getByRole('status')).toHaveText(`Duplicated as renamed ${suffix} (Copy)`);
    await expect(page.getByRole('link', { name: `renamed ${suffix} (Copy)` })).toBeVisible();
    await expect(row(page, `dir ${suffix}`)).toContainText('(2)');
    await expectAccessible(page);

    // Deleting the directory names both tests inside before anything goes.
    await page.getByRole('button', { name: `Delete dir ${suffix}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete directory dir ${suffix}?` });
    await expect(confirm.getByText('and everything inside: 2 items')).toBeVisible();
    await expect(confirm.getByRole('listitem').filter({ hasText: `renamed ${suffix} (Copy)` })).toBeVisible();
    await expect(
      confirm.getByRole('listitem').filter({ hasText: new RegExp(`^renamed ${suffix}$`) }),
    ).toBeVisible();
    await expectAccessible(page);
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByText(`dir ${suffix}/`)).toHaveCount(0);
    await expect(page.getByRole('link', { name: `renamed ${suffix}` })).toHaveCount(0);
  });

  test("a directory whose children cannot be listed says so, with the service's message", async ({
    page,
  }) => {
    const directoryId = await createDirectory(`unlisted ${suffix}`);
    await createTest({ name: `unlisted leaf ${suffix}`, parentTestId: directoryId, steps: [] });
    await page.route(`**/v1/tests?*testId=${directoryId}*`, (route) =>
      route.fulfill({ status: 500, json: { message: 'Database unavailable' } }),
    );
    await page.reload();
    await page.getByRole('button', { name: `Expand unlisted ${suffix}` }).click();
    // After the query's retries: the error above the table, and the row no longer says loading.
    await expect(page.getByText('Database unavailable')).toBeVisible({ timeout: 15_000 });
    await expect(row(page, `unlisted ${suffix}`)).toContainText('not listed');
    await expect(row(page, `unlisted ${suffix}`)).not.toContainText('loading');
    await expect(page.getByRole('link', { name: `unlisted leaf ${suffix}` })).toHaveCount(0);
  });

  test("loads the top level first and a directory's children when it is expanded", async ({ page }) => {
    const outerId = await createDirectory(`lazy outer ${suffix}`);
    const innerId = await createDirectory(`lazy inner ${suffix}`, outerId);
    await createTest({ name: `lazy leaf ${suffix}`, parentTestId: outerId, steps: [] });
    await createTest({ name: `lazy deep ${suffix}`, parentTestId: innerId, steps: [] });
    const lists: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/tests') lists.push(url.search);
    });
    await page.reload();

    // The first render asks for the top level only; the directory shows its count, folded.
    await expect(row(page, `lazy outer ${suffix}`)).toContainText('(2)');
    await expect(page.getByRole('button', { name: `Expand lazy outer ${suffix}` })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
    await expect(page.getByRole('link', { name: `lazy leaf ${suffix}` })).toHaveCount(0);
    expect(lists).toEqual(['?limit=10000&type=all&topLevel=true']);

    // Expanding (keyboard) asks for that directory's direct children, and only those.
    await page.getByRole('button', { name: `Expand lazy outer ${suffix}` }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('link', { name: `lazy leaf ${suffix}` })).toBeVisible();
    await expect(row(page, `lazy inner ${suffix}`)).toContainText('(1)');
    await expect(page.getByRole('link', { name: `lazy deep ${suffix}` })).toHaveCount(0);
    expect(lists.slice(1)).toEqual([`?type=all&testId=${outerId}`]);
    await page.getByRole('button', { name: `Expand lazy inner ${suffix}` }).click();
    await expect(page.getByRole('link', { name: `lazy deep ${suffix}` })).toBeVisible();
    expect(lists).toContain(`?type=all&testId=${innerId}`);
    await expectAccessible(page);

    // A change refreshes the expanded directories: a test created inside the inner one shows
    // there, and both counts follow.
    await page.getByRole('button', { name: 'New test' }).click();
    const create = page.getByRole('dialog', { name: 'New test' });
    await create.getByLabel('Name').fill(`lazy new ${suffix}`);
    await create.getByLabel('In directory').selectOption({ label: `lazy inner ${suffix}` });
    await create.getByRole('button', { name: 'Create test' }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Edit lazy new ${suffix}` })).toBeVisible();
    await page.goBack();
    await expect(page.getByRole('link', { name: `lazy new ${suffix}` })).toBeVisible();
    await expect(row(page, `lazy inner ${suffix}`)).toContainText('(2)');

    // Expanded directories stay expanded on a reload (kept for the tab), and fold again.
    await page.reload();
    await expect(page.getByRole('link', { name: `lazy deep ${suffix}` })).toBeVisible();
    await page.getByRole('button', { name: `Collapse lazy outer ${suffix}` }).click();
    await expect(page.getByRole('link', { name: `lazy leaf ${suffix}` })).toHaveCount(0);
    await expect(page.getByRole('link', { name: `lazy deep ${suffix}` })).toHaveCount(0);

    // Selection outlives folding: a test selected inside, then folded away, is still acted on.
    await page.getByRole('button', { name: `Expand lazy outer ${suffix}` }).click();
    await page.getByRole('checkbox', { name: `Select lazy leaf ${suffix}` }).check();
    await page.getByRole('button', { name: `Collapse lazy outer ${suffix}` }).click();
    const bar = page.getByRole('group', { name: /1 selected/ });
    await bar.getByLabel('New status').selectOption('archived');
    await bar.getByRole('button', { name: 'Set status' }).click();
    await expect(page.getByRole('status')).toHaveText('Status set to archived on 1 tests');
    const leaf = (await testDetail(outerId)).children.find(
      (child: { name: string }) => child.name === `lazy leaf ${suffix}`,
    );
    expect(leaf.status).toBe('archived');
  });

  test('shows the API refusal when an active schedule uses the test', async ({ page }) => {
    const scheduledId = await createTest(waitingTest(`scheduled ${suffix}`, 10));
    await createSchedule(page, `nightly ${suffix}`, [scheduledId]);
    await page.reload();
    await page.getByRole('button', { name: `Delete scheduled ${suffix}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete test scheduled ${suffix}?` });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(confirm.getByRole('alert')).toContainText('Not deleted (400)');
    await expect(confirm.getByRole('alert')).toContainText(`nightly ${suffix}`);
    await expectAccessible(page);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('link', { name: `scheduled ${suffix}` })).toBeVisible();
  });

  test('filters, and acts on a selection: status, tags, run, delete', async ({ page }) => {
    const dirId = await createDirectory(`bulk dir ${suffix}`);
    const firstId = await createTest({ ...waitingTest(`bulk one ${suffix}`, 10), parentTestId: dirId });
    await createTest({ ...waitingTest(`bulk two ${suffix}`, 10), status: 'draft' });
    const tagName = `tag-${suffix}`;
    await createTag(page, tagName);
    await page.reload();

    // Name filter: a flat list, each test with its directory.
    await page.getByLabel('Name', { exact: true }).fill(`bulk one ${suffix}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/name=bulk/);
    await expect(page.getByRole('link', { name: `bulk one ${suffix}` })).toBeVisible();
    await expect(row(page, `bulk one ${suffix}`)).toContainText(`in bulk dir ${suffix}`);
    await expect(page.getByRole('link', { name: `bulk two ${suffix}` })).toHaveCount(0);
    await page.getByLabel('Name', { exact: true }).fill(`bulk`);
    await page.getByLabel('Status', { exact: true }).selectOption('draft');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByRole('link', { name: `bulk two ${suffix}` })).toBeVisible();
    await expect(page.getByRole('link', { name: `bulk one ${suffix}` })).toHaveCount(0);

    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('checkbox', { name: `Select bulk one ${suffix}` }).check();
    await page.getByRole('checkbox', { name: `Select bulk two ${suffix}` }).check();
    const bar = page.getByRole('group', { name: /2 selected/ });
    await expect(bar).toBeVisible();
    await expectAccessible(page);

    await bar.getByLabel('New status').selectOption('archived');
    await bar.getByRole('button', { name: 'Set status' }).click();
    await expect(page.getByRole('status')).toHaveText('Status set to archived on 2 tests');
    await expect(row(page, `bulk one ${suffix}`).locator('[data-status]')).toHaveText('archived');
    await expect(row(page, `bulk two ${suffix}`).locator('[data-status]')).toHaveText('archived');

    await bar.getByRole('group', { name: 'Tags' }).getByRole('checkbox', { name: tagName }).check();
    await bar.getByRole('button', { name: 'Replace tags' }).click();
    await expect(page.getByRole('status')).toHaveText('Tags replaced on 2 tests');
    await expect(row(page, `bulk two ${suffix}`)).toContainText(tagName);
    expect((await testDetail(firstId)).test.tags.map((tag: { name: string }) => tag.name)).toEqual([tagName]);

    // Tag and type filters from the API.
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByLabel('Tag', { exact: true }).selectOption({ label: tagName });
    await page.getByLabel('Type', { exact: true }).selectOption('api');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByRole('caption')).toHaveText('2 matching');
    await page.getByLabel('Type', { exact: true }).selectOption('ui');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByRole('caption')).toHaveText('0 matching');
    await page.getByLabel('Type', { exact: true }).selectOption('all');
    await page.getByRole('button', { name: 'Apply filters' }).click();

    // Archived tests do not run: make them active, then run the selection.
    await bar.getByLabel('New status').selectOption('active');
    await bar.getByRole('button', { name: 'Set status' }).click();
    await expect(page.getByRole('status')).toHaveText('Status set to active on 2 tests');
    await bar.getByRole('button', { name: 'Run selected' }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.getByText(`bulk one ${suffix}`).first()).toBeVisible();
    await page.goBack();

    await page.getByRole('checkbox', { name: `Select bulk one ${suffix}` }).check();
    await page.getByRole('checkbox', { name: `Select bulk two ${suffix}` }).check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 tests?' });
    await expect(confirm.getByRole('listitem')).toHaveCount(2);
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('caption')).toHaveText('0 matching');
  });
});
