import fs from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import {
  accountButton,
  bootstrap,
  createTest,
  expectAccessible,
  failingUiTest,
  openAdminPage,
  runPath,
  signInFresh,
  startRun,
  uiRunConfig,
  waitForRun,
} from './fixtures.ts';

/**
 * Every console page at 1280 px with long names (a 64-character test name, a long organization
 * and project name), empty, and with the API failing: nothing is wider than the window, the
 * header stays on one line, no page error. Each page is saved under test-results/screens/ for
 * a person to look at.
 */
const screens = 'test-results/screens';

// A test may end while the organization's route handler still fetches (a reload, a chunk
// aborted): its response is then gone, which is no failure of the page under test.
test.afterEach(async ({ page }) => {
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});
const longOrg = 'The Very Long Organization Name of a Company With Many Departments GmbH & Co. KG';
const suffix = Date.now().toString(36);
const longTest = `checkout ${suffix} `.padEnd(64, 'x');
let runId = '';
let testId = '';

// Seventeen pages, each loaded, measured and photographed: room for a loaded CI machine.
test.describe.configure({ mode: 'serial', timeout: 600_000 });

test.beforeAll(async () => {
  testId = await createTest(failingUiTest(longTest));
  runId = await startRun(testId, uiRunConfig());
  await waitForRun(runId, ['failed', 'completed']);
});

async function prepare(page: Page) {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  // A long organization name, as the header shows it.
  await page.route('**/console/v1/organization', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { data: { name: string } };
    await route.fulfill({ response, json: { ...body, data: { ...body.data, name: longOrg } } });
  });
  await signInFresh(page);
  return errors;
}

async function check(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  await expect(page.getByRole('status').filter({ hasText: /^Loading/ })).toHaveCount(0);
  fs.mkdirSync(screens, { recursive: true });
  await page.screenshot({ path: `${screens}/${name}.png`, fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name}: wider than the window`).toBeLessThanOrEqual(0);
  const banner = page.getByRole('banner');
  if ((await banner.count()) && (page.viewportSize()?.width ?? 0) >= 1000) {
    const brand = await banner.getByText('Stepdeck', { exact: true }).boundingBox();
    const signOut = await accountButton(page).boundingBox();
    expect(Math.abs((signOut?.y ?? 0) - (brand?.y ?? 0)), `${name}: header on one line`).toBeLessThan(20);
  }
  // Nothing in the header overlaps or spills out of its box (names shrink with an ellipsis).
  const clashes = await page.evaluate(() => {
    const items = [...document.querySelectorAll('.topbar > *')] as HTMLElement[];
    const found: string[] = [];
    items.forEach((item, index) => {
      const box = item.getBoundingClientRect();
      // The user's name and role, and the labelled switchers (the open menu may extend its nav).
      const spills = item.matches('.account-menu, label') && item.scrollWidth > item.clientWidth + 1;
      if (spills) found.push(`${item.className || item.tagName} spills`);
      for (const other of items.slice(index + 1)) {
        const next = other.getBoundingClientRect();
        const sameRow = box.top < next.bottom - 2 && next.top < box.bottom - 2;
        if (sameRow && box.left < next.right - 1 && next.left < box.right - 1)
          found.push(`${item.className || item.tagName} overlaps ${other.className || other.tagName}`);
      }
    });
    return found;
  });
  expect(clashes, `${name}: header`).toEqual([]);
}

test('every page with long names, at 1280 px', async ({ page }) => {
  const errors = await prepare(page);
  const project = `/console/projects/${bootstrap().projectId}`;
  await page.goto(runPath(runId));
  await expect(page.getByRole('heading', { level: 1, name: longTest })).toBeVisible();
  await check(page, 'run-page-failure');
  await page.goto(`${project}/runs`);
  await check(page, 'runs-list');
  await page.goto(`${project}/dashboard`);
  await expect(page.getByRole('img', { name: /Runs per day/ })).toBeVisible();
  await check(page, 'dashboard');
  await page.goto(`${project}/tests`);
  await check(page, 'tests-tree');
  await page.goto(`${project}/tests/${testId}`);
  await check(page, 'editor');
  for (const name of [
    'API keys',
    'Webhooks',
    'Schedules',
    'Presets',
    'Users',
    'Audit log',
    'Secrets',
    'Tags',
    'Organization',
    'Email inboxes',
    'Projects',
  ]) {
    await openAdminPage(page, name);
    await expect(page.getByRole('heading', { level: 1, name: new RegExp(name, 'i') })).toBeVisible();
    await check(page, `admin-${name.toLowerCase().replace(' ', '-')}`);
  }
  await page.getByRole('button', { name: 'Administration' }).click();
  await check(page, 'admin-menu-open');
  await page.setViewportSize({ width: 800, height: 900 });
  await page.goto(runPath(runId));
  await expect(page.getByRole('heading', { level: 1, name: longTest })).toBeVisible();
  await check(page, 'run-page-800px');
  expect(errors).toEqual([]);
});

test('an empty project with a long name', async ({ page }) => {
  const errors = await prepare(page);
  const projectId = await page.evaluate(
    async (name) => {
      const response = await fetch('/console/v1/projects', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' },
        body: JSON.stringify({ name }),
      });
      return ((await response.json()) as { data: { id: string } }).data.id;
    },
    `Empty project ${suffix} `.padEnd(64, 'y'),
  );
  for (const [path, name] of [
    ['runs', 'empty-runs-list'],
    ['dashboard', 'empty-dashboard'],
    ['tests', 'empty-tests-tree'],
  ] as const) {
    await page.goto(`/console/projects/${projectId}/${path}`);
    await check(page, name);
    await expectAccessible(page);
  }
  // The empty tree says what to do instead of showing a bare header.
  await expect(page.getByText('No tests here yet: create one with New test or New directory')).toBeVisible();
  // So does the empty runs list, with the way to a first run.
  await page.goto(`/console/projects/${projectId}/runs`);
  await expect(page.getByRole('status')).toHaveText(
    'No runs on this branch yet. A run starts from the Tests page, the API, a schedule or the GitHub Action.',
  );
  await expect(page.getByRole('link', { name: 'Tests', exact: true }).last()).toHaveAttribute(
    'href',
    `/console/projects/${projectId}/tests`,
  );
  expect(errors).toEqual([]);
});

test('the API failing: messages, not blank pages', async ({ page }) => {
  const errors = await prepare(page);
  const project = `/console/projects/${bootstrap().projectId}`;
  await page.route(/\/v1\/(test-runs|tests)(\/|\?|$)/, (route) =>
    route.fulfill({ status: 500, json: { message: 'Internal server error (injected by the test)' } }),
  );
  for (const [path, name] of [
    [runPath(runId), 'error-run-page'],
    [`${project}/runs`, 'error-runs-list'],
    [`${project}/dashboard`, 'error-dashboard'],
    [`${project}/tests`, 'error-tests-tree'],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('alert').first()).toContainText('injected by the test', { timeout: 30_000 });
    await check(page, name);
    await expectAccessible(page);
  }
  expect(errors).toEqual([]);
});

test('a page whose code cannot load: a message and a way back, not a blank page', async ({ page }) => {
  const errors = await prepare(page);
  const project = `/console/projects/${bootstrap().projectId}`;
  // As after an update that removed the old chunk, or a dropped connection.
  const chunk = /\/console\/assets\/TestsPage-[^/]*\.js$/;
  await page.route(chunk, (route) => route.abort());
  // Opened from another page: the header stays, the page says what happened.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tests' }).click();
  await expect(page.getByRole('alert')).toContainText('This page could not be opened');
  await expect(page.getByRole('banner')).toBeVisible();
  await check(page, 'error-page-code');
  await expectAccessible(page);
  // Opened directly: the same message.
  await page.goto(`${project}/tests`);
  await expect(page.getByRole('alert')).toContainText('This page could not be opened');
  // Once the code can be fetched again, reloading opens the page.
  await page.unroute(chunk);
  await page.getByRole('button', { name: 'Reload the console' }).click();
  await expect(page.getByRole('heading', { name: 'Tests', level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});

test('names of one unbroken word wrap instead of widening the tests list, the filters or the editor', async ({
  page,
}) => {
  const errors = await prepare(page);
  const project = `/console/projects/${bootstrap().projectId}`;
  const name = 'x'.repeat(64);
  const stepName = `open ${'y'.repeat(200)}`;
  const id = await createTest({ name, steps: [{ name: stepName, action: { name: 'goto', url: '/page' } }] });
  await page.goto(`${project}/tests`);
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
  await check(page, 'unbroken-tests-tree');
  await page.goto(`${project}/runs`);
  const testFilter = page.getByLabel('Test or directory');
  await expect(testFilter.getByRole('option', { name, exact: true })).toHaveCount(1);
  await check(page, 'unbroken-runs-filters');
  // The select keeps a filter's width; its option still holds the whole name.
  expect((await testFilter.boundingBox())?.width ?? 0).toBeLessThanOrEqual(400);
  await page.goto(`${project}/tests/${id}`);
  const step = page.getByRole('button', { name: new RegExp(`^1\\. ${stepName}`) });
  await expect(step).toBeVisible();
  await check(page, 'unbroken-editor');
  const stepBox = await step.boundingBox();
  const revisions = await page.getByRole('heading', { name: 'Revisions' }).boundingBox();
  expect((stepBox?.x ?? 0) + (stepBox?.width ?? 0), 'step name runs under Revisions').toBeLessThanOrEqual(
    revisions?.x ?? 0,
  );
  expect(errors).toEqual([]);
});
