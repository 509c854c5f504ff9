import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from '@playwright/test';
import { ciScopes } from '@stepdeck/contract';
import { createDirectory, editorPath, testsPath } from './authoring-fixtures.ts';
import {
  apiCall,
  bootstrap,
  consoleFetch,
  createTest,
  expectAccessible,
  signedInTest as test,
  waitingTest,
} from './fixtures.ts';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** What `npx github:stepdeck/stepdeck` fetches and runs: this repository's `stepdeck` bin. */
const cliBin = path.join(repoDir, 'dist', 'cli', 'index.js');
const suffix = Date.now().toString(36);

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/**
 * The CI setup panel of a test, a directory and the project: IDs with copy buttons, the action's
 * workflow step, the CLI line, and a CI key with exactly the action's scopes. The CLI line is then
 * run as written (the bin npx would fetch is this repository's) and starts a run with that key.
 */
test('a test’s CI setup: IDs to copy, a workflow step, and a CLI line that runs it with a new CI key', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const testId = await createTest(waitingTest(`ci ${suffix}`, 10));
  await page.goto(editorPath(testId));
  await page.getByRole('link', { name: 'CI setup' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'CI setup' })).toBeVisible();
  await expect(page.getByLabel('What CI runs')).toHaveValue(`test:${testId}`);

  const ids = page.getByRole('region', { name: 'IDs' });
  await expect(ids).toContainText(bootstrap().projectId);
  await expect(ids).toContainText(testId);
  await ids.getByRole('button', { name: 'Copy test ID' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(testId);
  await ids.getByRole('button', { name: 'Copy project ID' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(bootstrap().projectId);

  const origin = new URL(page.url()).origin;
  await expect(page.getByTestId('ci-workflow')).toHaveText(
    [
      '- name: Stepdeck tests',
      '  uses: stepdeck/stepdeck@v1',
      '  with:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the expression the step holds
      '    api-key: ${{ secrets.STEPDECK_API_KEY }}',
      `    base-url: ${origin}`,
      `    project-id: ${bootstrap().projectId}`,
      `    test-ids: ${testId}`,
    ].join('\n'),
  );
  await expectAccessible(page);

  await page.getByRole('button', { name: 'Create CI key' }).click();
  const key = (await page.getByTestId('ci-key').textContent()) ?? '';
  expect(key).toMatch(/^sd_/);
  const keys = await consoleFetch(page, 'GET', '/console/v1/api-keys');
  const made = (keys.json.data as Array<{ prefix: string; scopes: string[]; name: string }>).find((item) =>
    key.startsWith(item.prefix),
  );
  expect(made?.scopes.sort()).toEqual([...ciScopes].sort());
  await page.screenshot({ path: test.info().outputPath('ci-setup-test.png'), fullPage: true });

  // The CLI line as shown, run by a shell; only the package npx would download is the local one.
  const cli = (await page.getByTestId('ci-cli').textContent()) ?? '';
  expect(cli).toContain(`export STEPDECK_API_KEY=${key}\n`);
  expect(cli).toContain(`npx github:stepdeck/stepdeck run --base-url ${origin}`);
  const script = cli.replace('npx github:stepdeck/stepdeck', `"${process.execPath}" "${cliBin}"`);
  // Where a CI job would run it: the CLI writes its artifacts folder there.
  const { stdout } = await promisify(execFile)('bash', ['-ec', script], {
    cwd: await mkdtemp(path.join(tmpdir(), 'stepdeck-ci-line-')),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    timeout: 180_000,
  });
  expect(stdout).toMatch(/passed/i);
  // The run it started belongs to the test and was triggered with the new key.
  const runs = await apiCall('GET', `/v1/test-runs?testId=${testId}`);
  expect(runs.json.data).toHaveLength(1);
  const run = await apiCall('GET', `/v1/test-runs/${runs.json.data[0].id}`);
  expect(run.json.data.status).toBe('completed');
  expect(run.json.data.metadata.trigger).toMatchObject({ type: 'apiKey', name: made?.name });
});

test('a directory’s and the project’s CI setup name their own IDs', async ({ page }) => {
  const directoryId = await createDirectory(`ci dir ${suffix}`);
  await createTest({ ...waitingTest(`ci inside ${suffix}`, 10), parentTestId: directoryId });
  await page.goto(testsPath());
  await page.getByRole('link', { name: `CI setup for ci dir ${suffix}` }).click();
  await expect(page.getByLabel('What CI runs')).toHaveValue(`test:${directoryId}`);
  const ids = page.getByRole('region', { name: 'IDs' });
  await expect(ids.getByText(`Directory ci dir ${suffix}`)).toBeVisible();
  await expect(ids.getByRole('button', { name: 'Copy directory ID' })).toBeVisible();
  await expect(page.getByTestId('ci-cli')).toContainText(`--test-ids ${directoryId} --wait`);
  await page.screenshot({ path: test.info().outputPath('ci-setup-directory.png'), fullPage: true });
  await expectAccessible(page);

  // The project's panel, from the Tests page: a tag runs every active test carrying it.
  const tag = await consoleFetch(page, 'POST', '/console/v1/tags', { name: `ci tag ${suffix}` });
  expect(tag.status).toBe(201);
  await page.goto(testsPath());
  await page.getByRole('link', { name: 'CI setup', exact: true }).click();
  await page.getByLabel('What CI runs').selectOption({ label: `tag ci tag ${suffix}` });
  await expect(page.getByTestId('ci-workflow')).toContainText(`    tag-id: ${tag.json.data.id}`);
  await expect(page.getByTestId('ci-cli')).toContainText(`--tag-id ${tag.json.data.id} --wait`);
  await expect(
    page.getByRole('region', { name: 'IDs' }).getByRole('button', { name: 'Copy tag ID' }),
  ).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('ci-setup-project.png'), fullPage: true });
  await expectAccessible(page);
});
