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
      code: 'CSRF_HEADER_REQUIRED',
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
    expect(await call(true)).toEqual({
      status: 400,
      body: { message: 'Run is already completed', code: 'RUN_ALREADY_FINISHED' },
    });
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
    expect(refused).toEqual({
      status: 403,
      body: { message: 'This action needs an admin or owner role', code: 'ADMIN_ROLE_REQUIRED' },
    });
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

test.describe('what every page loads', () => {
  test('the console declares its icon inline, so no page asks for /favicon.ico', async ({ page }) => {
    // Headless Chromium does not fetch icons itself, so the test checks what a browser would:
    // the page names an icon (else it falls back to /favicon.ico), and that icon renders under
    // the page's CSP.
    await signInFresh(page);
    const icon = page.locator('link[rel="icon"]');
    await expect(icon).toHaveAttribute('href', /^data:image\/svg\+xml,/);
    const width = await icon.evaluate(
      (link: HTMLLinkElement) =>
        new Promise<number>((resolve) => {
          const image = new Image();
          image.onload = () => resolve(image.naturalWidth);
          image.onerror = () => resolve(0);
          image.src = link.href;
        }),
    );
    expect(width).toBeGreaterThan(0);
  });

  test('the trace viewer opens without a CSP violation; its script hash is for its page only', async ({
    page,
  }) => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
        violations.push(message.text());
    });
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __violations: string[] }).__violations = seen;
      document.addEventListener('securitypolicyviolation', (event) => {
        seen.push(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    await signInFresh(page);
    const response = await page.goto('/console/trace/index.html');
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle('Playwright Trace Viewer');
    await page.waitForLoadState('networkidle');
    expect(
      await page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? []),
    ).toEqual([]);
    expect(violations).toEqual([]);

    const scriptSrc = (policy: string | null) =>
      (policy ?? '').split(';').find((directive) => directive.startsWith('script-src')) ?? '';
    const viewerHashes = scriptSrc(response?.headers()['content-security-policy'] ?? null).match(
      /'sha256-[^']+'/g,
    );
    expect(viewerHashes).toHaveLength(1);
    // The console's own page and the viewer's other files keep their policies.
    const consolePolicy = (await fetch(`${serviceUrl()}/console/`)).headers.get('content-security-policy');
    expect(scriptSrc(consolePolicy)).not.toContain(viewerHashes?.[0]);
    const workerPolicy = (await fetch(`${serviceUrl()}/console/trace/sw.bundle.js`)).headers.get(
      'content-security-policy',
    );
    expect(scriptSrc(workerPolicy)).toBe("script-src 'self'");
  });
});
