import { expect } from '@playwright/test';
import nodemailer from 'nodemailer';
import { consoleCall, editorPath } from './authoring-fixtures.ts';
import {
  accountButton,
  apiCall,
  bootstrap,
  createTest,
  expectAccessible,
  expectDateTimes,
  failingUiTest,
  openAdminPage,
  runPath,
  serviceUrl,
  siteUrl,
  startRun,
  signedInTest as test,
  waitForRun,
} from './fixtures.ts';

/**
 * The pages a new team meets in its first hour, as they read: times with their zone, runs, tests
 * and schedules linked both ways, counts and triggers in the runs list, the effective base URL,
 * words instead of raw names, empty states that say where to start, how to send mail to an inbox,
 * a dashboard chart by day from 0, the account menu legible, and `/docs` fast at the README's address.
 * Screenshots go to the test's output folder for a person to look at.
 */
const suffix = Date.now().toString(36);
const shot = (name: string) => ({ path: test.info().outputPath(`${name}.png`), fullPage: true });

let testId: string;
let runId: string;

test.beforeAll(async () => {
  // The run waits behind others' on a loaded machine.
  test.setTimeout(240_000);
  // A test with its own base URL, failing at its second step: the third step is never run.
  testId = await createTest({
    ...failingUiTest(`first hour ${suffix}`),
    config: { use: { baseURL: siteUrl(), actionTimeout: 1500 } },
    steps: [
      ...failingUiTest('').steps,
      { name: 'after the failure', action: { name: 'goto', url: '/page' } },
    ],
  });
  runId = await startRun(testId);
  await waitForRun(runId, ['failed', 'completed'], 200_000);
});

test('the run page links its test and the test its runs; Config shows the effective base URL', async ({
  page,
}) => {
  await page.goto(runPath(runId));
  const facts = page.locator('dl.facts').first();
  await expect(facts).toContainText('API key');
  // Created, started, finished: each with its zone.
  expect(await expectDateTimes(facts)).toBe(3);
  await expect(page.getByTestId('effective-base-url')).toHaveText(`${siteUrl()} (the test's)`);
  await expect(page.getByRole('region', { name: 'Config' })).toContainText('chromium (default)');
  // Step outcomes in words: the step after the failure was not run.
  const notRun = page.locator('.badge[data-status="notRun"]').first();
  await expect(notRun).toHaveText('not run');
  expect(await notRun.evaluate((element) => getComputedStyle(element, '::first-letter').textTransform)).toBe(
    'uppercase',
  );
  await page.screenshot(shot('run-page'));
  await expectAccessible(page);

  await page.getByRole('link', { name: 'its runs' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?testId=${testId}$`));
  await expect(page.getByRole('link', { name: `first hour ${suffix}` })).toHaveCount(1);

  await page.goto(runPath(runId));
  await page
    .locator('dl.facts')
    .getByRole('link', { name: `first hour ${suffix}` })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: `Edit first hour ${suffix}` })).toBeVisible();
  await page.getByRole('link', { name: 'Runs of this test' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?testId=${testId}$`));
  await expect(page.getByRole('link', { name: `first hour ${suffix}` })).toHaveCount(1);
});

test('a directory run names the tests it left out, each linked to its editor', async ({ page }) => {
  const suite = await createTest({ name: `left-out suite ${suffix}`, directory: true });
  await createTest({ ...failingUiTest(`left-out active ${suffix}`), parentTestId: suite });
  const draft = await createTest({
    ...failingUiTest(`left-out draft ${suffix}`),
    parentTestId: suite,
    status: 'draft',
  });
  const suiteRun = await startRun(suite);
  await page.goto(runPath(suiteRun));
  const facts = page.locator('dl.facts').first();
  await expect(facts).toContainText('Left out');
  await expect(facts).toContainText('1 not active (drafts and archived tests are not run)');
  await facts.getByRole('link', { name: `left-out draft ${suffix}` }).click();
  await expect(page).toHaveURL(new RegExp(`/tests/${draft}`));
  await apiCall('POST', `/v1/test-runs/${suiteRun}/cancel`);
});

test('the runs list shows each run’s counts and trigger', async ({ page }) => {
  await page.goto(`/console/projects/${bootstrap().projectId}/runs?testId=${testId}`);
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `first hour ${suffix}` }) });
  await expect(row.getByRole('cell').nth(2)).toHaveText('0 passed, 1 failed of 1');
  await expect(row.getByRole('cell').nth(3)).toHaveText(/^API key “.+”$/);
  await expect(page.getByRole('columnheader')).toHaveText([
    'Run',
    'Status',
    'Tests',
    'Trigger',
    'Branch',
    'Created',
    'Duration',
  ]);
  expect(await expectDateTimes(page.getByRole('main'))).toBeGreaterThan(0);
  await page.screenshot(shot('runs-list'));
  await expectAccessible(page);
});

test('the editor labels its fields in words', async ({ page }) => {
  await page.goto(editorPath(testId));
  await page.getByText('Run configuration').click();
  for (const label of ['Browser', 'Trace', 'Video', 'Screenshot'])
    await expect(page.getByLabel(label, { exact: true })).toBeVisible();
  await expect(page.getByText('browserName', { exact: true })).toHaveCount(0);
  await page.getByText('Vars, parameters and tags').click();
  await expect(page.getByRole('group', { name: 'Tags' })).toBeVisible();
  await page.screenshot(shot('editor'));
  await expectAccessible(page);
});

test('the dashboard charts runs by day from 0 and links its tests', async ({ page }) => {
  await page.goto(`/console/projects/${bootstrap().projectId}/dashboard`);
  const chart = page.getByRole('img', { name: /Runs per day/ });
  await expect(chart).toHaveAttribute('data-x-ticks', /\d/);
  expect(await chart.getAttribute('data-y-min')).toBe('0');
  const ticks = ((await chart.getAttribute('data-x-ticks')) ?? '').split(' ').map(Number);
  // A tick a day (or every n-th day), never between days.
  for (const [index, tick] of ticks.entries())
    if (index > 0) expect((tick - (ticks[index - 1] as number)) % 86_400).toBe(0);
  const failing = page.getByRole('region', { name: /Most failing tests/ });
  await failing.getByRole('link', { name: `first hour ${suffix}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Edit first hour ${suffix}` })).toBeVisible();
  await page.goBack();
  await expect(chart).toBeVisible();
  await page.screenshot(shot('dashboard'));
  await expectAccessible(page);
});

test('a project without schedules says what one is; a schedule links its runs', async ({ page }) => {
  const created = await consoleCall(page, 'POST', '/console/v1/projects', { name: `empty ${suffix}` });
  expect(created.status).toBe(201);
  await page.goto(`/console/projects/${created.json.data.id}/admin/schedules`);
  await expect(page.getByText('No schedules yet.')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Schedules of this project' })).toHaveCount(0);
  await page.screenshot(shot('schedules-empty'));
  await expectAccessible(page);

  const schedule = await consoleCall(page, 'POST', '/console/v1/schedules', {
    name: `hourly ${suffix}`,
    projectId: bootstrap().projectId,
    testIds: [testId],
    cron: '0 3 1 1 *',
    timezone: 'Asia/Tokyo',
    enabled: true,
  });
  expect(schedule.status).toBe(201);
  await page.goto(`/console/projects/${bootstrap().projectId}/admin/schedules`);
  const row = page.getByRole('row').filter({ hasText: `hourly ${suffix}` });
  // The next firing in the schedule's zone, named.
  await expect(row.locator('time').first()).toHaveText(/ GMT\+9$/);
  await expect(row.getByRole('link', { name: `first hour ${suffix}` })).toBeVisible();
  await page.screenshot(shot('schedules'));
  await row.getByRole('link', { name: `Runs of hourly ${suffix}` }).click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?scheduleId=${schedule.json.data.id}$`));
  await expect(page.getByLabel('Schedule', { exact: true })).toHaveValue(schedule.json.data.id);
});

test('the inbox page says where to send mail, and mail sent there arrives', async ({ page }) => {
  const inbox = await consoleCall(page, 'POST', '/console/v1/email-inboxes', { name: `mail ${suffix}` });
  expect(inbox.status).toBe(201);
  await openAdminPage(page, 'Email inboxes');
  const help = page.getByRole('region', { name: 'Sending mail to an inbox' });
  await expect(help).toBeVisible();
  const host = (await help.getByTestId('smtp-host').textContent()) ?? '';
  const port = Number(await help.getByTestId('smtp-port').textContent());
  expect(host).toBe(new URL(serviceUrl()).hostname);
  const smtp = nodemailer.createTransport({ host, port, secure: false, ignoreTLS: true });
  try {
    await smtp.sendMail({
      from: 'app@example.test',
      to: inbox.json.data.address,
      subject: `hello ${suffix}`,
      text: 'x',
    });
  } finally {
    smtp.close();
  }
  await page.getByRole('button', { name: `Open ${inbox.json.data.address}` }).click();
  await expect(page.getByText(`hello ${suffix}`).first()).toBeVisible();
  await page.screenshot(shot('inboxes'));
  await expectAccessible(page);
});

test('the account menu’s Change password reads dark on its white panel', async ({ page }) => {
  await page.goto(`/console/projects/${bootstrap().projectId}/runs`);
  await accountButton(page).click();
  const link = page.getByRole('link', { name: 'Change password' });
  await expect(link).toBeVisible();
  expect(await link.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(26, 79, 160)');
  await page.screenshot({ path: test.info().outputPath('account-menu.png') });
  await expectAccessible(page, '.account-panel');
});

test('/docs opens at the README’s address, names it, and draws its list quickly', async ({ page }) => {
  const address = serviceUrl().replace('127.0.0.1', 'localhost');
  const started = Date.now();
  await page.goto(`${address}/docs`);
  await expect(page.locator('.opblock-tag').first()).toBeVisible({ timeout: 60_000 });
  const elapsed = Date.now() - started;
  console.log(`/docs drew its tags in ${elapsed} ms`);
  await expect(page.locator('.servers')).toContainText(address);
  expect((await apiCall('GET', '/openapi.json')).json.openapi).toBe('3.1.0');
  await page.screenshot({ path: test.info().outputPath('docs.png') });
});
