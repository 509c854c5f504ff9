import { expect, type Page } from '@playwright/test';
import { consoleCall, editorPath, stepsList, testDetail } from './authoring-fixtures.ts';
import {
  apiCall,
  bootstrap,
  createTest,
  expectAccessible,
  siteUrl,
  signedInTest as test,
} from './fixtures.ts';

/**
 * Issue 14, shared steps: a shared step's steps replaced from its manage dialog with the
 * editor's parts, after the usage and the copy-on-write rule; a change meanwhile asks which to
 * keep; both tests using it show the change, and one runs to a pass. Edited on a branch while
 * another branch uses it: copy-on-write, this branch gets its own copy, the other keeps its steps.
 */
test.describe('shared step children', () => {
  const suffix = Date.now().toString(36);

  /** The shared step's children in the tree a test shows (names of its direct children). */
  const sharedChildren = async (testId: string) => {
    const node = (await testDetail(testId)).steps.find((step: { shared: boolean }) => step.shared);
    return node.children.map((child: { name: string; action: Record<string, unknown> }) => ({
      name: child.name,
      action: child.action,
    }));
  };

  /** Opens the manage dialog of the shared group at `position` in the open editor. */
  const openManageDialog = async (page: Page, position: number, sharedName: string) => {
    await stepsList(page)
      .getByRole('button', { name: new RegExp(`^${position}\\. ${sharedName}`) })
      .click();
    await page
      .getByRole('region', { name: /^Step:/ })
      .getByRole('button', { name: 'Manage shared step…' })
      .click();
    return page.getByRole('dialog', { name: `Shared step ${sharedName}` });
  };
  /** Opens the editor at `path` and the manage dialog of its second step, the shared group. */
  const openSharedStep = async (page: Page, path: string, sharedName: string) => {
    await page.goto(path);
    return openManageDialog(page, 2, sharedName);
  };
  /** A test that opens the greeter and greets through a shared group (its steps: fill, click). */
  const createGreeterWithSharedGroup = (name: string, sharedName: string) =>
    createTest({
      name,
      steps: [
        { name: 'open greeter', action: { name: 'goto', url: `${siteUrl()}/greet` } },
        {
          name: sharedName,
          shared: true,
          group: true,
          action: { name: 'group' },
          children: [
            { name: 'type name', action: { name: 'fill', selector: '#who', value: 'Ada' } },
            { name: 'press greet', action: { name: 'click', selector: '#go' } },
          ],
        },
      ],
    });

  test('replaces a shared step\u2019s steps used by two tests; both show it and one runs to a pass', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const sharedName = `greet ${suffix}`;
    const firstId = await createGreeterWithSharedGroup(`first user ${suffix}`, sharedName);
    const sharedId = (await testDetail(firstId)).steps[1].stepId as string;
    const secondId = await createTest({
      name: `second user ${suffix}`,
      steps: [
        { name: 'open greeter', action: { name: 'goto', url: `${siteUrl()}/greet` } },
        { shared: true, stepId: sharedId },
      ],
    });

    const dialog = await openSharedStep(page, editorPath(firstId), sharedName);
    // Who it reaches and the copy-on-write rule come before any editing.
    const usage = dialog.getByText(/^Used by 2 tests on this branch: /);
    await expect(usage).toContainText(`first user ${suffix}`);
    await expect(usage).toContainText(`second user ${suffix}`);
    await dialog.getByRole('button', { name: 'Edit its steps…' }).click();
    const tree = dialog.getByRole('list', { name: 'Steps', exact: true });
    await expect(tree.getByRole('button')).toHaveText([/^1\. type name fill/, /^2\. press greet click/]);
    const form = dialog.getByRole('region', { name: /^Shared step’s step:/ });
    await tree.getByRole('button', { name: /^1\. type name/ }).click();
    await form.getByLabel('value', { exact: true }).fill('Bob');
    await tree.getByRole('button', { name: /^2\. press greet/ }).click();
    await dialog.getByRole('button', { name: 'Add assertText', exact: true }).click();
    // The contract's check as in the editor: the save waits for a valid step.
    await expect(dialog.getByRole('button', { name: 'Review and save its steps…' })).toBeDisabled();
    await form.getByLabel('Step name', { exact: true }).fill('greeted');
    await form.getByLabel('selector', { exact: true }).fill('#out');
    await form.getByLabel('value', { exact: true }).fill('Hello Bob');
    await expectAccessible(page);
    await page.screenshot({ path: 'test-results/screens/shared-step-editing.png', fullPage: true });
    await dialog.getByRole('button', { name: 'Review and save its steps…' }).click();
    const review = dialog.getByRole('region', { name: 'Before saving' });
    await expect(review).toContainText(
      `Saving replaces the steps of ${sharedName} in 2 tests on this branch: `,
    );
    await expect(review).toContainText(`first user ${suffix}`);
    await expect(review).toContainText(`second user ${suffix}`);
    await expect(review).toContainText('copy-on-write');
    await expectAccessible(page);

    // Someone replaces the steps meanwhile (through the second test): the save asks first.
    const secondNode = (await testDetail(secondId)).steps[1].id as string;
    const theirs = await apiCall('PUT', `/v1/steps/${secondNode}/children`, {
      children: JSON.stringify([
        { name: 'theirs', action: { name: 'fill', selector: '#who', value: 'Eve' } },
      ]),
    });
    expect(theirs.status).toBe(200);
    await review.getByRole('button', { name: 'Replace its steps' }).click();
    const conflict = dialog.getByRole('alert');
    await expect(conflict).toContainText('Someone changed this shared step’s steps since you opened them.');
    await expectAccessible(page);
    await page.screenshot({ path: 'test-results/screens/shared-step-conflict.png', fullPage: true });
    expect(await sharedChildren(firstId)).toEqual([
      { name: 'theirs', action: { name: 'fill', selector: '#who', value: 'Eve' } },
    ]);
    await conflict.getByRole('button', { name: 'Overwrite with mine' }).click();
    await expect(dialog.getByRole('status').last()).toHaveText('Saved 3 steps for 2 tests');
    await expect(tree.getByRole('button')).toHaveText([
      /^1\. type name fill/,
      /^2\. press greet click/,
      /^3\. greeted assertText/,
    ]);

    const expected = [
      { name: 'type name', action: { name: 'fill', selector: '#who', value: 'Bob' } },
      { name: 'press greet', action: { name: 'click', selector: '#go' } },
      { name: 'greeted', action: { name: 'assertText', selector: '#out', value: 'Hello Bob' } },
    ];
    expect(await sharedChildren(firstId)).toEqual(expected);
    expect(await sharedChildren(secondId)).toEqual(expected);
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    // The second test's editor shows the new steps under the shared step.
    await page.goto(editorPath(secondId));
    await stepsList(page)
      .getByRole('button', { name: new RegExp(`^2\\. ${sharedName}`) })
      .click();
    await expect(stepsList(page).getByRole('button', { name: /^2\.3\. greeted assertText/ })).toBeVisible();

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('dialog', { name: 'Run this test' }).getByRole('button', { name: 'Run' }).click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.locator('[data-status]').first()).toHaveText('completed', { timeout: 150_000 });
  });

  test('edits a shared step used on two branches: this branch gets its own copy, the other keeps its steps', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const sharedName = `cow ${suffix}`;
    const userName = `cow user ${suffix}`;
    const testId = await createGreeterWithSharedGroup(userName, sharedName);
    const originalId = (await testDetail(testId)).steps[1].stepId as string;
    // A branch made from the default: its working revision points at the same shared step.
    const branch = await consoleCall(page, 'POST', `/console/v1/projects/${bootstrap().projectId}/branches`, {
      name: `cow-${suffix}`,
    });
    expect(branch.status).toBe(201);
    const onBranch = { 'x-branch-id': branch.json.data.id as string };
    const usage = async (stepId: string, headers: Record<string, string> = {}) => {
      const response = await apiCall('GET', `/v1/steps/${stepId}/usage`, undefined, headers);
      expect(response.status).toBe(200);
      return response.json.data.map((user: { name: string }) => user.name);
    };
    const sharedNode = async (headers: Record<string, string> = {}) => {
      const response = await apiCall('GET', `/v1/tests/${testId}`, undefined, headers);
      expect(response.status).toBe(200);
      const node = response.json.steps[1];
      return {
        stepId: node.stepId as string,
        children: node.children.map((child: { name: string; action: Record<string, unknown> }) => ({
          name: child.name,
          action: child.action,
        })),
      };
    };
    const before = [
      { name: 'type name', action: { name: 'fill', selector: '#who', value: 'Ada' } },
      { name: 'press greet', action: { name: 'click', selector: '#go' } },
    ];
    expect(await usage(originalId)).toEqual([userName]);
    expect(await usage(originalId, onBranch)).toEqual([userName]);

    // On the branch: the usage and the copy-on-write rule come before any editing.
    const dialog = await openSharedStep(
      page,
      `${editorPath(testId)}?branch=${onBranch['x-branch-id']}`,
      sharedName,
    );
    await expect(dialog.getByText(/^Used by 1 test on this branch: /)).toHaveText(
      `Used by 1 test on this branch: ${userName}.`,
    );
    await expect(
      dialog.getByText(/Tests on other branches keep the\s+version they have \(copy-on-write\)/),
    ).toBeVisible();
    await dialog.getByRole('button', { name: 'Edit its steps…' }).click();
    const tree = dialog.getByRole('list', { name: 'Steps', exact: true });
    const form = dialog.getByRole('region', { name: /^Shared step’s step:/ });
    await tree.getByRole('button', { name: /^1\. type name/ }).click();
    await form.getByLabel('Step name', { exact: true }).fill('type Bob');
    await form.getByLabel('value', { exact: true }).fill('Bob');
    await dialog.getByRole('button', { name: 'Review and save its steps…' }).click();
    const review = dialog.getByRole('region', { name: 'Before saving' });
    await expect(review).toContainText(
      `Saving replaces the steps of ${sharedName} in 1 test on this branch: ${userName}`,
    );
    await expect(review).toContainText('copy-on-write');
    await review.getByRole('button', { name: 'Replace its steps' }).click();
    await expect(dialog.getByRole('status').last()).toHaveText(
      'Saved 2 steps for 1 test: another branch uses it, so this branch now has its own copy; the other branches keep the steps they had (copy-on-write)',
    );
    await expect(tree.getByRole('button')).toHaveText([/^1\. type Bob fill/, /^2\. press greet click/]);
    await expectAccessible(page);

    // The outcome through the API: the branch uses a new shared step record with the new steps;
    // the default branch still uses the original, unchanged.
    const mine = await sharedNode(onBranch);
    expect(mine.stepId).not.toBe(originalId);
    expect(mine.children).toEqual([
      { name: 'type Bob', action: { name: 'fill', selector: '#who', value: 'Bob' } },
      before[1],
    ]);
    expect(await sharedNode()).toEqual({ stepId: originalId, children: before });
    expect(await usage(originalId)).toEqual([userName]);
    expect(await usage(mine.stepId, onBranch)).toEqual([userName]);
    // Each record is now a shared step of one branch only (docs/tests.md: a shared step is on a
    // branch when a working revision there uses it, or nothing does): 404 on the other.
    expect((await apiCall('GET', `/v1/steps/${originalId}/usage`, undefined, onBranch)).status).toBe(404);
    expect((await apiCall('GET', `/v1/steps/${mine.stepId}/usage`)).status).toBe(404);

    // The dialog now manages the branch's copy: used by the same test, and a second edit changes
    // the copy in place (no other branch uses it), keeping its id.
    await expect(dialog.getByText(/^Used by 1 test on this branch: /)).toHaveText(
      `Used by 1 test on this branch: ${userName}.`,
    );
    await tree.getByRole('button', { name: /^1\. type Bob/ }).click();
    await form.getByLabel('value', { exact: true }).fill('Cy');
    await dialog.getByRole('button', { name: 'Review and save its steps…' }).click();
    await review.getByRole('button', { name: 'Replace its steps' }).click();
    await expect(dialog.getByRole('status').last()).toHaveText('Saved 2 steps for 1 test');
    const again = await sharedNode(onBranch);
    expect(again.stepId).toBe(mine.stepId);
    expect(again.children[0]).toEqual({
      name: 'type Bob',
      action: { name: 'fill', selector: '#who', value: 'Cy' },
    });
    expect(await sharedNode()).toEqual({ stepId: originalId, children: before });
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    // The editors show it too: the branch's test the new steps, the default's the old ones.
    await expect(stepsList(page).getByRole('button', { name: /^2\.1\. type Bob fill/ })).toBeVisible();
    await page.goto(editorPath(testId));
    await stepsList(page)
      .getByRole('button', { name: new RegExp(`^2\\. ${sharedName}`) })
      .click();
    await expect(stepsList(page).getByRole('button', { name: /^2\.1\. type name fill/ })).toBeVisible();
    await expect(stepsList(page).getByRole('button', { name: /type Bob/ })).toHaveCount(0);
  });

  test('an unsaved editor holds back editing a shared step\u2019s steps', async ({ page }) => {
    const sharedName = `held ${suffix}`;
    const testId = await createTest({
      name: `holder ${suffix}`,
      steps: [
        {
          name: sharedName,
          shared: true,
          group: true,
          action: { name: 'group' },
          children: [{ name: 'open', action: { name: 'goto', url: `${siteUrl()}/greet` } }],
        },
      ],
    });
    await page.goto(editorPath(testId));
    await page.getByRole('combobox', { name: 'Status' }).selectOption('draft');
    const dialog = await openManageDialog(page, 1, sharedName);
    await expect(dialog.getByText(/^Save or discard your changes to this test/)).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Edit its steps…' })).toHaveCount(0);
    await expectAccessible(page);
  });
});
