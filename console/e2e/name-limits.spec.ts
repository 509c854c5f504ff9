import { expect } from '@playwright/test';
import { editorPath, stepField } from './authoring-fixtures.ts';
import { bootstrap, createTest, expectAccessible, openAdminPage, signedInTest as test } from './fixtures.ts';

/**
 * Every name the console asks for stops at the service's limit (128 for the administration's
 * names, the contract's 256 for a step's), and the editor offers no step that would nest groups
 * deeper than the service takes (50 levels).
 */
test('each administration name input stops at the 128 characters the service takes', async ({ page }) => {
  const long = 'n'.repeat(200);
  for (const [pageName, form, label] of [
    ['API keys', 'Create an API key', 'Key name'],
    ['Tags', undefined, 'Tag name'],
    ['Schedules', 'Create a schedule', 'Schedule name'],
    ['Secrets', undefined, 'Secret name'],
    ['Presets', undefined, 'Preset name'],
    ['Projects', 'Create a project', 'Project name'],
    ['Email inboxes', undefined, 'Inbox name (optional)'],
  ] as const) {
    await openAdminPage(page, pageName);
    const scope = form ? page.getByRole('form', { name: form }) : page.getByRole('main');
    const input = scope.getByLabel(label, { exact: true });
    await input.fill(long);
    await expect(input, `${pageName}: ${label}`).toHaveValue('n'.repeat(128));
  }
  // A project's branches: the branch form under the open project.
  await page.goto(`/console/projects/${bootstrap().projectId}/admin/projects`);
  await page
    .getByRole('button', { name: /^Branches of / })
    .first()
    .click();
  const branch = page.getByRole('form', { name: 'Create a branch' }).getByLabel('Branch name');
  await branch.fill(long);
  await expect(branch).toHaveValue('n'.repeat(128));
});

test('the editor takes step names up to 256 characters and adds nothing into a group 50 levels deep', async ({
  page,
}) => {
  const testId = await createTest({ name: `deep ${Date.now().toString(36)}`, steps: [] });
  await page.goto(editorPath(testId));
  const palette = page.getByRole('region', { name: 'Add a step' });
  const addWait = palette.getByRole('button', { name: 'Add wait', exact: true });
  const addGroup = palette.getByRole('button', { name: 'Add group', exact: true });
  // A new group is chosen once added and the next step goes inside it: 50 clicks, 50 levels.
  for (let level = 1; level <= 50; level++) await addGroup.click();
  await expect(page.getByRole('heading', { name: 'Step: group' })).toBeVisible();

  // The innermost group is at level 50: a step added now would sit at 51, which the service refuses.
  await expect(addGroup).toBeDisabled();
  await expect(addWait).toBeDisabled();
  await expect(addGroup).toHaveAccessibleDescription(/is 50 levels deep, the most groups may nest/);
  await expect(palette.getByRole('note')).toBeVisible();
  // Its name field stops at the contract's limit.
  const name = stepField(page, 'Step name');
  await name.fill('s'.repeat(300));
  await expect(name).toHaveValue('s'.repeat(256));
  await expectAccessible(page);

  // What the editor made, the service takes.
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('All changes saved')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});
