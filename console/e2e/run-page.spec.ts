import { expect, test } from '@playwright/test';
import {
  apiCall,
  createTest,
  expectAccessible,
  failingUiTest,
  runPath,
  signInFresh,
  startRun,
  uiRunConfig,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

test.describe.configure({ mode: 'serial' });

test.describe('the run page', () => {
  let failedRunId: string;

  test.beforeAll(async () => {
    failedRunId = await startRun(await createTest(failingUiTest('checkout title')), uiRunConfig());
  });

  test.beforeEach(async ({ page }) => {
    await signInFresh(page);
  });

  test('shows the status moving live from active to terminal without a reload', async ({ page }) => {
    const runId = await startRun(await createTest(waitingTest('live status', 4000)));
    await page.goto(runPath(runId));
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same document';
    });
    const status = page.getByRole('status', { name: 'Run status' });
    await expect(status).toHaveText(/^(pending|queued|running)$/);
    await expect(page.getByRole('button', { name: 'Cancel' })).toBeVisible();
    await expect(status).toHaveText('completed', { timeout: 90_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe(
      'same document',
    );
    await expect(page.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
    await expect(page.getByText('1 passed, 0 failed, 0 skipped of 1')).toBeVisible();
    await expect(page.getByText('API key “bootstrap”')).toBeVisible();
  });

  test("shows a failed run's error, failing step and screenshot, failed tests first", async ({ page }) => {
    await waitForRun(failedRunId, ['completed', 'failed']);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(runPath(failedRunId));
    await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('failed');
    // index.html's start-up script ran (its CSP hash holds) and its early requests were used.
    const early = await page.evaluate(() => {
      const left = (window as unknown as { __stepdeckEarly?: Record<string, unknown> }).__stepdeckEarly;
      return left ? Object.keys(left) : 'no early requests';
    });
    expect(early).toEqual([]);
    expect(violations).toEqual([]);
    const card = page.getByTestId('test-result').first();
    await expect(card.getByRole('heading', { name: 'checkout title' })).toBeVisible();
    // Its first failure anywhere: new, said in words (screen readers hear what it classes).
    await expect(card.getByTestId('triage')).toHaveText('Failure triage: new');
    await expect(card.getByTestId('triage')).toHaveAttribute('title', /Not failing on the base branch/);
    await expect(card.locator('.error-message').first()).toContainText('Something else');
    await expect(card.getByText('Failing step:')).toBeVisible();
    // The error is shown once (where Playwright's HTML report shows it), not again in the steps.
    await expect(
      card.getByText('Expected substring: "Something else"').filter({ visible: true }),
    ).toHaveCount(1);
    await expect(card.getByText('Received string:').filter({ visible: true })).toHaveCount(1);
    await expect(card.locator('.steps li[data-status="failed"]')).toContainText('check title');
    await expect(card.getByRole('button', { name: 'Open trace' })).toBeVisible();
    const screenshot = card.getByRole('img', { name: /Screenshot of checkout title/ });
    await expect(screenshot).toBeVisible();
    await expect
      .poll(() => screenshot.evaluate((image) => (image as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    await expect(page.getByRole('link', { name: 'test-run.log' })).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: '../docs/console-run-page.png', fullPage: true });
  });

  test("opens Playwright's trace viewer on the test's trace and shows its actions", async ({ page }) => {
    await page.goto(runPath(failedRunId));
    await page.getByRole('button', { name: 'Open trace' }).first().click();
    const dialog = page.getByRole('dialog', { name: /Trace of checkout title/ });
    await expect(dialog).toBeVisible();
    const viewer = page.frameLocator('iframe[title^="Playwright trace viewer"]');
    // The viewer's action list: the test's name and the steps as the user wrote them.
    await expect(viewer.getByText(/› checkout title/).first()).toBeVisible({ timeout: 60_000 });
    await expect(viewer.getByText('Actions', { exact: true }).first()).toBeVisible();
    await expect(viewer.getByText('open', { exact: true }).first()).toBeVisible();
    await expect(viewer.getByText('check title', { exact: true }).first()).toBeVisible();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Close trace' }).click();
    await expect(dialog).toHaveCount(0);
  });

  test('cancels an active run', async ({ page }) => {
    const runId = await startRun(await createTest(waitingTest('to cancel', 120_000)), { timeout: 300_000 });
    await page.goto(runPath(runId));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('cancelled');
    expect((await apiCall('GET', `/v1/test-runs/${runId}`)).json.data.status).toBe('cancelled');
  });

  test('runs again with the same target and config, and opens the new run', async ({ page }) => {
    const before = (await apiCall('GET', `/v1/test-runs/${failedRunId}`)).json.data;
    // The API refuses a second run of one test within 10 seconds: wait that out.
    const wait = Date.parse(before.createdAt) + 11_000 - Date.now();
    if (wait > 0) await page.waitForTimeout(wait);
    await page.goto(runPath(failedRunId));
    await page.getByRole('button', { name: 'Run again' }).click();
    await expect(page).not.toHaveURL(new RegExp(`${failedRunId}$`));
    const newRunId = page.url().split('/').pop() as string;
    await expect(page.getByRole('heading', { level: 1, name: 'checkout title' })).toBeVisible();
    const again = (await apiCall('GET', `/v1/test-runs/${newRunId}`)).json.data;
    expect(again.testId).toBe(before.testId);
    expect(again.config.use.baseURL).toBe(before.config.use.baseURL);
    expect(again.metadata.trigger).toEqual({ type: 'manual', name: 'admin@localhost' });
    await expect(page.getByRole('status', { name: 'Run status' })).toHaveText('failed', { timeout: 90_000 });
  });

  test("shows a split run's batches: tests, runner slot, status, duration, attempts", async ({ page }) => {
    // Two tests of 9 s each: enough work for two batches (docs/orchestrated-runs.md: ≥ 4 start-ups each).
    const suffix = Date.now().toString(36);
    const ids = [
      await createTest(waitingTest(`shard one ${suffix}`, 9000)),
      await createTest(waitingTest(`shard two ${suffix}`, 9000)),
    ];
    const started = await apiCall('POST', '/v1/tests/remote-run', { testIds: ids });
    expect(started.status).toBe(200);
    const runId = started.json.data.runId as string;
    const run = await waitForRun(runId, ['completed', 'failed'], 120_000);
    expect(run.shards?.length).toBeGreaterThan(0);
    await page.goto(runPath(runId));
    await expect(page.getByRole('heading', { name: 'Shards' })).toBeVisible();
    const rows = page.getByTestId('run-batch');
    await expect(rows).toHaveCount(2);
    for (const name of [`shard one ${suffix}`, `shard two ${suffix}`])
      await expect(rows.filter({ hasText: name })).toHaveCount(1);
    for (const row of await rows.all()) {
      await expect(row.getByRole('cell').nth(0)).toContainText('done');
      await expect(row.getByRole('cell').nth(2)).toHaveText(/#\d+$/);
      await expect(row.getByRole('cell').nth(3)).toContainText(/\d+(\.\d)? s/);
      await expect(row.getByRole('cell').last()).toHaveText('1');
    }
    await expectAccessible(page);
  });

  test('names the device and browser environment the run set, and the device’s viewport', async ({
    page,
  }) => {
    const runId = await startRun(await createTest(waitingTest('on a phone', 0)), {
      device: 'Pixel 7',
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
    });
    await page.goto(runPath(runId));
    const facts = page.getByRole('region', { name: 'Config' });
    await expect(facts.getByRole('definition').filter({ hasText: 'Pixel 7 · ' })).toHaveText(
      'Pixel 7 · locale de-DE · time zone Europe/Berlin',
    );
    await expect(facts.getByText("the device's (Pixel 7)")).toBeVisible();
    await expectAccessible(page);
  });

  test('answers an unknown run and a run of another project with a not-found page', async ({ page }) => {
    await page.goto(runPath('00000000-0000-4000-8000-000000000000'));
    await expect(page.getByRole('heading', { name: 'Run not found' })).toBeVisible();
    await expectAccessible(page);
    const other = await page.evaluate(async () => {
      const response = await fetch('/console/v1/projects', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' },
        body: JSON.stringify({ name: `Other ${Date.now()}` }),
      });
      return ((await response.json()) as { data: { id: string } }).data.id;
    });
    await page.goto(runPath(failedRunId, other));
    await expect(page.getByRole('heading', { name: 'Run not found' })).toBeVisible();
    await page.goto('/console/no/such/page');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  });
});
