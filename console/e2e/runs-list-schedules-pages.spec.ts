import { expect, test } from '@playwright/test';
import {
  apiCall,
  bootstrap,
  createTest,
  expectAccessible,
  serviceUrl,
  signInFresh,
  startRun,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

/** A console session for setting up what only the console API creates (schedules). */
async function consoleSession() {
  const info = bootstrap();
  const signIn = await fetch(`${serviceUrl()}/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' },
    body: JSON.stringify({ email: info.adminEmail, password: info.adminPassword }),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return (method: string, path: string, body?: unknown) =>
    fetch(`${serviceUrl()}${path}`, {
      method,
      headers: { cookie, 'x-stepdeck-csrf': '1', 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
}

test.describe('runs list: schedule filter and pages', () => {
  const suffix = Date.now().toString(36);
  const scheduleName = `nightly ${suffix}`;

  test('filters by schedule: only the runs that schedule started', async ({ page }) => {
    test.setTimeout(240_000);
    // A schedule that never fires by itself (disabled), started once through the API.
    const scheduledTest = await createTest(waitingTest(`scheduled ${suffix}`, 10));
    const call = await consoleSession();
    const created = await call('POST', '/console/v1/schedules', {
      name: scheduleName,
      projectId: bootstrap().projectId,
      testIds: [scheduledTest],
      cron: '0 3 * * *',
      enabled: false,
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const scheduleId = ((await created.json()) as { data: { id: string } }).data.id;
    const triggered = await apiCall('POST', `/v1/schedules/${scheduleId}/trigger`);
    expect(triggered.status, JSON.stringify(triggered.json)).toBe(200);
    const scheduledRun = triggered.json.data.runId as string;
    const manualRun = await startRun(await createTest(waitingTest(`manual ${suffix}`, 10)));
    await waitForRun(scheduledRun, ['completed']);
    await waitForRun(manualRun, ['completed']);

    await signInFresh(page);
    const rows = page.locator('table.runs tbody tr');
    // Unfiltered, the list holds the manual run and the other runs too.
    const caption = page.locator('table.runs caption');
    await expect(caption).toHaveText(/^\d+ runs$/);
    expect(Number.parseInt((await caption.textContent()) ?? '', 10)).toBeGreaterThanOrEqual(2);
    await page.getByLabel('Schedule', { exact: true }).selectOption({ label: scheduleName });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/scheduleId=/);
    await expect(rows).toHaveCount(1);
    await expect(page.getByText('1 run', { exact: true })).toBeVisible();
    const link = rows.getByRole('link');
    await expect(link).toHaveAttribute('href', new RegExp(`/runs/${scheduledRun}$`));
    await expect(rows.getByText('(schedule)')).toBeVisible();
    await expect(page.getByRole('link', { name: `manual ${suffix}` })).toHaveCount(0);
    await expect(page.getByRole('link', { name: `scheduled ${suffix}` })).toBeVisible();
    await expectAccessible(page);
    // The filter is in the URL: a reload (or a shared link) shows the same list.
    await page.reload();
    await expect(rows).toHaveCount(1);
    await expect(page.getByLabel('Schedule', { exact: true })).toHaveValue(/.+/);
  });

  test('pages through the runs, 20 a page, with every run on exactly one page', async ({ page }) => {
    test.setTimeout(420_000);
    // 21 runs sharing a name: one more than a page (API tests: no browser starts).
    const pagedRuns: string[] = [];
    for (let index = 0; index < 21; index += 1) {
      const testId = await createTest(waitingTest(`paged ${suffix} ${String(index).padStart(2, '0')}`, 10));
      pagedRuns.push(await startRun(testId));
    }
    for (const runId of pagedRuns) await waitForRun(runId, ['completed'], 240_000);

    await signInFresh(page);
    const rows = page.locator('table.runs tbody tr');
    await page.getByLabel('Name', { exact: true }).fill(`paged ${suffix}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByText('21 runs')).toBeVisible();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect(pager.getByText('Page 1 of 2')).toBeVisible();
    await expect(pager.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await expect(rows).toHaveCount(20);
    const hrefs = async () =>
      (
        await rows.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href')))
      ).map((href) => String(href).split('/').pop());
    const first = await hrefs();
    await expectAccessible(page);

    await pager.getByRole('button', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/page=1/);
    await expect(pager.getByText('Page 2 of 2')).toBeVisible();
    await expect(rows).toHaveCount(1);
    await expect(pager.getByRole('button', { name: 'Next page' })).toBeDisabled();
    const second = await hrefs();
    expect([...first, ...second].sort()).toEqual([...pagedRuns].sort());

    await pager.getByRole('button', { name: 'Previous page' }).click();
    await expect(pager.getByText('Page 1 of 2')).toBeVisible();
    await expect(rows).toHaveCount(20);
    expect(await hrefs()).toEqual(first);
  });
});
