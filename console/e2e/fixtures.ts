import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Locator, type Page } from '@playwright/test';
import type { Bootstrap } from './service.ts';

export const serviceUrl = () => process.env.STEPDECK_E2E_URL as string;
export const siteUrl = () => process.env.STEPDECK_E2E_SITE as string;
export const bootstrap = (): Bootstrap =>
  JSON.parse(process.env.STEPDECK_E2E_BOOTSTRAP as string) as Bootstrap;

// biome-ignore lint/suspicious/noExplicitAny: the tests read answers of many shapes; each asserts what it reads
type Json = Record<string, any>;

/** A call with the bootstrap API key on the default project (the way CI and the CLI call). */
export async function apiCall(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const info = bootstrap();
  const response = await fetch(`${serviceUrl()}${path}`, {
    method,
    headers: {
      'x-api-key': info.apiKey,
      'x-project-id': info.projectId,
      ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? null : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text ? (JSON.parse(text) as Json) : ({} as Json),
    retryAfter: Number(response.headers.get('retry-after') ?? Number.NaN),
  };
}

/** Creates an active test through the real POST /v1/tests API. */
export async function createTest(testData: Record<string, unknown>): Promise<string> {
  const form = new FormData();
  form.append('testData', JSON.stringify({ status: 'active', ...testData }));
  const response = await apiCall('POST', '/v1/tests', form);
  if (response.status !== 200)
    throw new Error(`create test: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json.data.id as string;
}

/**
 * Starts a run of the test as a client does: the spec's 10 s per-test cooldown (429
 * `RUN_COOLDOWN` with Retry-After) is waited out, since a quick run ends well inside it.
 */
export async function startRun(testId: string, config?: Record<string, unknown>): Promise<string> {
  let response = await apiCall('POST', `/v1/tests/${testId}/remote-run`, config ? { config } : {});
  for (let attempt = 0; attempt < 3 && response.json.code === 'RUN_COOLDOWN'; attempt++) {
    const seconds = Number.isFinite(response.retryAfter) ? response.retryAfter : 10;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    response = await apiCall('POST', `/v1/tests/${testId}/remote-run`, config ? { config } : {});
  }
  if (response.status !== 200)
    throw new Error(`remote-run: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json.data.runId as string;
}

export async function waitForRun(runId: string, statuses: string[], timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await apiCall('GET', `/v1/test-runs/${runId}`);
    if (statuses.includes(run.json.data?.status)) return run.json.data as Json;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${run.json.data?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** An API test that waits `ms` before passing: long enough to watch its status move. */
export const waitingTest = (name: string, ms: number) => ({
  name,
  metadata: { type: 'api' },
  steps: [{ name: 'wait', action: { name: 'wait', ms } }],
});

/** A browser test that opens the loopback page and expects the wrong title. */
export const failingUiTest = (name: string) => ({
  name,
  steps: [
    { name: 'open', action: { name: 'goto', url: '/page' } },
    { name: 'check title', action: { name: 'assertText', selector: '#title', value: 'Something else' } },
  ],
});
export const uiRunConfig = () => ({ use: { baseURL: siteUrl(), actionTimeout: 1500 } });

export const runPath = (runId: string, projectId = bootstrap().projectId) =>
  `/console/projects/${projectId}/runs/${runId}`;

export async function signIn(
  page: Page,
  email = bootstrap().adminEmail,
  password = bootstrap().adminPassword,
) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in from the sign-in page and waits until the console shows the runs list. */
export async function signInFresh(page: Page, email?: string, password?: string) {
  await page.goto('/console/sign-in');
  await signIn(page, email, password);
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
}

/**
 * The header's main navigation. Pages link to each other too (the empty runs list points to the
 * Tests page), so a page-wide "Tests" link can match twice.
 */
export const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** The signed-in user's menu in the header (email, role, Sign out). */
export const accountButton = (page: Page) =>
  page.getByRole('banner').getByRole('button', { name: /^Account:/ });

export async function signOut(page: Page) {
  await accountButton(page).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
}

/** Opens an administration page from the header's "Administration" menu. */
export async function openAdminPage(page: Page, name: string) {
  const banner = page.getByRole('banner');
  const menu = banner.getByRole('button', { name: 'Administration' });
  if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  await banner.getByRole('link', { name, exact: true }).click();
}

/**
 * No serious or critical accessibility violation on the page (Playwright's own viewer excluded);
 * `within` (a CSS selector) checks one part, for states that change only that part.
 */
export async function expectAccessible(page: Page, within?: string) {
  const builder = new AxeBuilder({ page }).exclude('iframe');
  const results = await (within ? builder.include(within) : builder).analyze();
  const bad = results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  expect(
    bad.map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    ),
  ).toEqual([]);
}

/**
 * `test` whose `page` is signed in fresh as the admin and fails its test on any uncaught page
 * error (the console's standard: no uncaught page errors).
 */
export const signedInTest = base.extend({
  page: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signInFresh(page);
    await use(page);
    expect(errors).toEqual([]);
  },
});

/**
 * The console's one date-time format (`formatTimestamp`), always with its zone:
 * `2026-11-25 08:40:17 UTC`, `Wed 2026-11-25 08:40:17 GMT+9`.
 */
export const dateTimePattern =
  /^([A-Z][a-z]{2} )?\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (UTC|GMT[+-]\d{1,2}(:\d{2})?|[A-Z]{2,5})$/;

/**
 * Every date-time in `within` is a `<time>` in the console's one format (or "… ago"), carrying
 * the exact ISO instant in `dateTime` and on hover; returns how many there were.
 */
export async function expectDateTimes(within: Locator): Promise<number> {
  const times = await within.locator('time').evaluateAll((elements) =>
    elements.map((element) => ({
      text: element.textContent ?? '',
      dateTime: element.getAttribute('datetime') ?? '',
      title: element.getAttribute('title') ?? '',
    })),
  );
  for (const time of times) {
    expect(time.text).toMatch(/ ago$/.test(time.text) ? / ago$/ : dateTimePattern);
    expect(time.dateTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(time.title).toContain(time.dateTime);
  }
  // No date-time outside a <time> in a locale's own format (11/25/2026, Nov 25, 2026, 25 Nov 2026).
  const text = await within.innerText();
  expect(text).not.toMatch(
    /\b\d{1,2}\/\d{1,2}\/\d{4}\b|\b[A-Z][a-z]{2} \d{1,2}, \d{4}\b|\b\d{1,2} [A-Z][a-z]{2} \d{4}\b/,
  );
  return times.length;
}

/** A console call from the signed-in page (cookie and CSRF header, as the console sends). */
export function consoleFetch(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(path, {
        method,
        headers: { 'content-type': 'application/json', 'x-stepdeck-csrf': '1' },
        body: body === undefined ? null : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text === '' ? null : JSON.parse(text) };
    },
    { method, path, body },
  );
}
