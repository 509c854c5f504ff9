import { expect } from '@playwright/test';
import { createSchedule } from './authoring-fixtures.ts';
import {
  bootstrap,
  createTest,
  expectDateTimes,
  openAdminPage,
  runPath,
  startRun,
  signedInTest as test,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

/**
 * Every page that shows a date-time shows it the same way (`2026-11-25 08:40:17`, the runs
 * list's format) in a `<time>` with the ISO instant on hover: runs, a run, the dashboard, and
 * the administration tables (API keys, projects and branches, schedules, the audit log).
 */
test('every date-time in the console has one format and its ISO instant on hover', async ({ page }) => {
  const testId = await createTest(waitingTest(`dates ${Date.now().toString(36)}`, 10));
  const runId = await startRun(testId);
  await waitForRun(runId, ['completed', 'failed']);
  await createSchedule(page, `dates schedule ${Date.now().toString(36)}`, [testId]);
  const main = page.getByRole('main');

  await page.goto(`/console/projects/${bootstrap().projectId}/runs`);
  await expect(main.locator('time').first()).toBeVisible();
  expect(await expectDateTimes(main)).toBeGreaterThan(0);

  await page.goto(runPath(runId));
  await expect(main.locator('time').first()).toBeVisible();
  // Created, started and completed.
  expect(await expectDateTimes(main)).toBe(3);

  await page.goto(`/console/projects/${bootstrap().projectId}/dashboard`);
  await expect(main.locator('time').first()).toBeVisible();
  await expectDateTimes(main);

  for (const [name, table] of [
    ['API keys', 'Keys of the organization'],
    ['Projects', 'Projects of the organization'],
    ['Schedules', 'Schedules of this project'],
    ['Audit log', /entries, newest first/],
  ] as const) {
    await openAdminPage(page, name);
    const rows = main.getByRole('table', { name: table }).locator('tbody tr');
    await expect(rows.first(), name).toBeVisible();
    expect(await expectDateTimes(main), name).toBeGreaterThan(0);
  }
});
