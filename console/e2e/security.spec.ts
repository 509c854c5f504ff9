import { expect, test } from '@playwright/test';
import {
  accountButton,
  apiCall,
  bootstrap,
  createTest,
  runPath,
  serviceUrl,
  signInFresh,
  signOut,
  siteUrl,
  startRun,
  waitForRun,
  waitingTest,
} from './fixtures.ts';

test.describe('cookie-authenticated changes', () => {
  let testId: string;
  let runId: string;

  test.beforeAll(async () => {
    testId = await createTest(waitingTest('csrf target', 10));
    runId = await startRun(testId);
    await waitForRun(runId, ['completed', 'failed']);
  });

  test('refuses a cross-site form that posts with the session cookie', async ({ page }) => {
    await signInFresh(page);
    const before = (await apiCall('GET', '/v1/test-runs?limit=500')).json.pagination.total as number;
    // Another origin's page auto-submits a form to the service; the browser attaches the cookie
    // (same site, other port), but a form cannot send the console's header.
    const action = `${serviceUrl()}/v1/tests/${testId}/remote-run`;
    const answer = page.waitForResponse((response) => response.url() === action);
    await page.goto(`${siteUrl()}/cross-site-form?action=${encodeURIComponent(action)}`);
    const response = await answer;
    expect(response.status()).toBe(403);
    expect(await response.json()).toEqual({
      message:
        'Cross-site request refused: a console request that changes data needs the x-stepdeck-csrf header',
    });
    expect((await apiCall('GET', '/v1/test-runs?limit=500')).json.pagination.total).toBe(before);
  });

  test("refuses the console's own fetch without the header, and accepts it with the header", async ({
    page,
  }) => {
    await signInFresh(page);
    const call = (withHeader: boolean) =>
      page.evaluate(
        async ({ id, projectId, withHeader }) => {
          const headers: Record<string, string> = {
            'x-project-id': projectId,
            'content-type': 'application/json',
          };
          if (withHeader) headers['x-stepdeck-csrf'] = '1';
          const response = await fetch(`/v1/test-runs/${id}/cancel`, { method: 'POST', headers, body: '{}' });
          return { status: response.status, body: await response.json() };
        },
        { id: runId, projectId: bootstrap().projectId, withHeader },
      );
    expect((await call(false)).status).toBe(403);
    // With the header the request is authenticated and reaches the handler (the run is over).
    expect(await call(true)).toEqual({ status: 400, body: { message: 'Run is already completed' } });
  });

  test('a member reads and runs, and is refused an admin-only action', async ({ page }) => {
    await signInFresh(page);
    const created = await page.evaluate(async () => {
      const response = await fetch('/console/v1/users', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' },
        body: JSON.stringify({ email: 'member@example.com', password: 'member-password-1', role: 'member' }),
      });
      return response.status;
    });
    expect(created).toBe(201);
    await signOut(page);
    await signInFresh(page, 'member@example.com', 'member-password-1');
    await accountButton(page).click();
    await expect(page.getByText('Signed in as member@example.com (member)')).toBeVisible();
    await page.goto(runPath(runId));
    await expect(page.getByRole('heading', { level: 1, name: 'csrf target' })).toBeVisible();
    // Creating a test needs an admin or owner.
    const refused = await page.evaluate(async (projectId) => {
      const form = new FormData();
      form.append('testData', JSON.stringify({ name: 'by a member' }));
      const response = await fetch('/v1/tests', {
        method: 'POST',
        headers: { 'x-project-id': projectId, 'x-stepdeck-csrf': '1' },
        body: form,
      });
      return { status: response.status, body: await response.json() };
    }, bootstrap().projectId);
    expect(refused).toEqual({ status: 403, body: { message: 'This action needs an admin or owner role' } });
    // Triggering a run is a member's everyday action: Run again works.
    // The spec's 10 s per-test cooldown may still hold from the run on this page: the console
    // shows that 429 as a message, and Run again starts the run once the cooldown has passed.
    await expect(async () => {
      await page.getByRole('button', { name: 'Run again' }).click();
      await expect(page).not.toHaveURL(new RegExp(`${runId}$`), { timeout: 2_000 });
    }).toPass({ timeout: 30_000, intervals: [2_000] });
    await expect(page.getByRole('heading', { level: 1, name: 'csrf target' })).toBeVisible();
  });
});
