import { expect } from '@playwright/test';
import {
  apiCall,
  bootstrap,
  createTest,
  expectAccessible,
  failingUiTest,
  signedInTest as test,
  uiRunConfig,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

/**
 * A test's history, the quarantine page and the dashboard's flaky and failing lists, after a
 * real run of a failing browser test and a passing API test.
 */
test.describe.configure({ mode: 'serial' });

const failingName = `History checkout ${Date.now()}`;
let failingId = '';
let runId = '';
const projectPath = () => `/console/projects/${bootstrap().projectId}`;

test.beforeAll(async () => {
  failingId = await createTest(failingUiTest(failingName));
  const passingId = await createTest(waitingTest(`History ping ${Date.now()}`, 10));
  // One bulk run of both (a 429 from another spec's recent bulk run: wait it out).
  for (;;) {
    const response = await apiCall('POST', '/v1/tests/remote-run', {
      testIds: [failingId, passingId],
      config: uiRunConfig(),
    });
    if (response.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      continue;
    }
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    runId = response.json.data.runId as string;
    break;
  }
  await waitForRun(runId, ['failed'], 120_000);
  // The history is written when the run's end is heard, just after its status shows.
  await expect
    .poll(async () => (await apiCall('GET', `/v1/tests/${failingId}/history`)).json.pagination?.total)
    .toBe(1);
});

test('a test’s history shows where it stands and each result, linked to its run', async ({ page }) => {
  await page.goto(`${projectPath()}/tests/${failingId}`);
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page.getByRole('heading', { name: `History of “${failingName}”`, level: 1 })).toBeVisible();
  await expect(page.getByRole('definition').filter({ hasText: '%' }).first()).toHaveText('0%');
  const strip = page.getByRole('navigation', { name: 'Latest 1 results, oldest first' });
  await expect(strip.getByRole('link', { name: /^failed, / })).toHaveCount(1);
  const row = page.getByRole('row').filter({ hasText: 'Failed' });
  await expect(row).toContainText('API key');
  await expect(row).toContainText('Something else');
  await expectAccessible(page);
  await page.screenshot({ path: 'test-results/history-page.png', fullPage: true });
  await strip.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}`));
});

test('quarantine from the history page, see its evidence, release it from the quarantine page', async ({
  page,
}) => {
  await page.goto(`${projectPath()}/tests/${failingId}/history`);
  await page.getByRole('button', { name: 'Quarantine…' }).click();
  const dialog = page.getByRole('dialog', { name: `Quarantine “${failingName}”` });
  await dialog.getByRole('button', { name: 'Quarantine' }).click();
  // The reason is required: the browser keeps the dialog open.
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Reason').fill('checkout sandbox is down');
  await dialog.getByLabel('Owner (optional)').fill('payments team');
  await expectAccessible(page);
  await dialog.getByRole('button', { name: 'Quarantine' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('note')).toContainText('In quarantine');
  await expect(page.getByRole('note')).toContainText('checkout sandbox is down (owner: payments team)');

  await page.getByRole('link', { name: 'Quarantined tests' }).click();
  await expect(page.getByRole('heading', { name: 'Quarantine', level: 1 })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: failingName });
  await expect(row).toContainText(
    'No results since it went in. Released once its pass rate, at worst, reaches 80%.',
  );
  await expect(row.getByRole('meter')).toHaveAccessibleName(/Pass rate at worst —, released at 80%/);
  await expect(page.getByRole('listitem').filter({ hasText: failingName }).first()).toContainText(
    'put in quarantine by',
  );
  await expectAccessible(page);
  await page.screenshot({ path: 'test-results/quarantine-page.png', fullPage: true });
  await row.getByRole('button', { name: `Release ${failingName}` }).click();
  await expect(page.getByRole('row').filter({ hasText: failingName })).toHaveCount(0);
  await expect(page.getByRole('listitem').filter({ hasText: failingName }).first()).toContainText(
    'released by',
  );
});

test('the dashboard lists the tests failing now, linked to their history', async ({ page }) => {
  await page.goto(`${projectPath()}/dashboard`);
  const failing = page.getByRole('region', { name: /Failing now on / });
  await expect(failing.getByRole('link', { name: failingName })).toBeVisible();
  await expect(page.getByRole('region', { name: /Flaky tests on / })).toBeVisible();
  await expectAccessible(page);
  await failing.getByRole('link', { name: failingName }).click();
  await expect(page.getByRole('heading', { name: `History of “${failingName}”` })).toBeVisible();
});

test('an unknown test’s history is a not-found page', async ({ page }) => {
  await page.goto(`${projectPath()}/tests/00000000-0000-4000-8000-000000000000/history`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(/not found/i);
});
