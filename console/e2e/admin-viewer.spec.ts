import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import nodemailer from 'nodemailer';
import {
  consoleFetch,
  expectAccessible,
  expectDateTimes,
  openAdminPage,
  signIn,
  waitingTest,
} from './fixtures.ts';
import { freePort, type RunningService, startService } from './service.ts';

/**
 * Administration, second pass, against a service of its own (its SMTP port known to the test):
 * the inbox viewer over a real SMTP conversation, webhook editing and samples, schedules by test
 * with trigger now and last runs, projects and branches, billing for owners only, a run with a
 * preset, and the audit log naming each actor.
 */
let service: RunningService;
let smtpPort: number;
let assets: http.Server;
let assetsUrl: string;
/** What the mail's remote references asked for: nothing until the reader allows remote content. */
const assetHits: string[] = [];
const adminEmail = `billing-admin-${Date.now()}@example.test`;
const memberEmail = `viewer-member-${Date.now()}@example.test`;
const password = 'password-e2e-123';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  assets = http.createServer((request, response) => {
    assetHits.push(request.url ?? '');
    response
      .writeHead(200, { 'content-type': 'image/gif' })
      .end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  await new Promise<void>((resolve) => assets.listen(0, '127.0.0.1', resolve));
  assetsUrl = `http://127.0.0.1:${(assets.address() as AddressInfo).port}`;
  smtpPort = await freePort();
  service = await startService({ SMTP_PORT: String(smtpPort), INBOX_DOMAIN: 'mail.e2e.test' });
});
test.afterAll(async () => {
  await new Promise((resolve) => assets?.close(resolve));
  await service?.stop();
});

const adminPath = (page: string) =>
  `${service.url}/console/projects/${service.bootstrap.projectId}/admin/${page}`;

async function signInAs(
  page: Page,
  email = service.bootstrap.adminEmail,
  secret = service.bootstrap.adminPassword,
) {
  await page.goto(`${service.url}/console/sign-in`);
  await signIn(page, email, secret);
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
}

async function apiKeyCall(method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      'x-api-key': service.bootstrap.apiKey,
      'x-project-id': service.bootstrap.projectId,
      ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : body instanceof FormData ? body : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts what it reads
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

async function createTestNamed(name: string): Promise<string> {
  const form = new FormData();
  form.append('testData', JSON.stringify({ status: 'active', ...waitingTest(name, 50) }));
  const created = await apiKeyCall('POST', '/v1/tests', form);
  expect(created.status).toBe(200);
  return created.json.data.id as string;
}

test('an email arrives live in the viewer over SMTP; HTML sandboxed, remote content on request', async ({
  page,
}) => {
  await signInAs(page);
  await openAdminPage(page, 'Email inboxes');
  await expect(page.getByRole('heading', { name: 'Email inboxes', level: 1 })).toBeVisible();
  await expect(page.getByTestId('inbox-usage')).toContainText('0 of 5 inboxes used');
  await page.getByLabel('Inbox name (optional)').fill('signup');
  await page.getByRole('button', { name: 'Create inbox' }).click();
  await expect(page.getByTestId('inbox-usage')).toContainText('1 of 5 inboxes used');
  const viewer = page.getByRole('region', { name: /^Messages of / });
  await expect(viewer.getByText('No mail yet')).toBeVisible();
  const address = (await viewer.locator('code').first().textContent()) ?? '';
  expect(address).toMatch(/@mail\.e2e\.test$/);
  await expectAccessible(page);

  // A real SMTP conversation with the service's listener, while the page is open.
  const smtp = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  try {
    await smtp.sendMail({
      from: 'Shop <shop@example.test>',
      to: address,
      subject: 'Confirm your account',
      headers: { 'X-Trace-ID': 'e2e-trace-42' },
      text: 'Open https://shop.example.test/confirm?token=abc to confirm.',
      html:
        `<h1>Welcome</h1><p>Please <a href="https://shop.example.test/confirm?token=abc">confirm</a>.</p>` +
        `<img alt="logo" src="${assetsUrl}/pixel.gif">` +
        `<script>fetch('${assetsUrl}/script-ran')</script>`,
    });
  } finally {
    smtp.close();
  }
  // No reload: the open inbox shows it as it arrives.
  const row = viewer.getByRole('row').filter({ hasText: 'Confirm your account' });
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText('shop@example.test');
  // Received: the console's one date-time format, the ISO instant on hover.
  expect(await expectDateTimes(row)).toBe(1);
  await row.getByRole('button', { name: 'Confirm your account' }).click();

  const message = page.getByRole('article', { name: 'Message: Confirm your account' });
  const frame = page.frameLocator('iframe[title="HTML of Confirm your account"]');
  await expect(frame.getByRole('heading', { name: 'Welcome' })).toBeVisible();
  await expect(message.getByRole('note')).toContainText('Remote images and styles are blocked');
  expect(await expectDateTimes(message)).toBe(1);
  // Rendered, yet nothing was fetched from elsewhere and the script never ran.
  await page.waitForTimeout(500);
  expect(assetHits).toEqual([]);
  await message.getByRole('button', { name: 'Load remote content' }).click();
  await expect.poll(() => assetHits).toContain('/pixel.gif');
  expect(assetHits).not.toContain('/script-ran');

  await message.getByRole('button', { name: 'Text' }).click();
  await expect(message.locator('pre')).toContainText('Open https://shop.example.test/confirm?token=abc');
  await message.getByRole('button', { name: 'Links (1)' }).click();
  await expect(
    message.getByRole('link', { name: 'https://shop.example.test/confirm?token=abc' }),
  ).toHaveAttribute('rel', 'noopener noreferrer');
  // Headers as Mailpit shows them: the raw block as received, monospace, scrollable.
  await message.getByRole('button', { name: 'Headers' }).click();
  const headers = message.getByRole('region', { name: 'Raw headers of the message' }).locator('pre');
  await expect(headers).toContainText('From: Shop <shop@example.test>');
  await expect(headers).toContainText(`To: ${address}`);
  await expect(headers).toContainText('Subject: Confirm your account');
  await expect(headers).toContainText('X-Trace-ID: e2e-trace-42');
  await expect(headers).not.toContainText('Welcome');
  const style = await headers.evaluate((element) => {
    const computed = getComputedStyle(element);
    return { font: computed.fontFamily, overflow: computed.overflow, whiteSpace: computed.whiteSpace };
  });
  expect(style.font).toContain('monospace');
  expect(style.overflow).toBe('auto');
  expect(style.whiteSpace).toBe('pre');
  await expectAccessible(page);

  await message.getByRole('button', { name: 'Delete message' }).click();
  await expect(row).toHaveCount(0);
  await expect(viewer.getByText('No mail yet')).toBeVisible();
});

test('a webhook is edited under the URL rules and the 4 KB limit; each event shows its sample', async ({
  page,
}) => {
  await signInAs(page);
  await page.goto(adminPath('webhooks'));
  const create = page.getByRole('form', { name: 'Create a webhook' });
  await create.getByLabel('Endpoint URL (https)').fill('https://example.invalid/hook');
  await create.getByRole('button', { name: 'Create webhook' }).click();
  // A name that does not resolve is refused with the service's rule.
  await expect(page.getByRole('alert')).toContainText('Not created');
  await create.getByLabel('Endpoint URL (https)').fill('https://127.0.0.1:9/first');
  await create.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByRole('button', { name: 'Done' }).click();

  const row = page.getByRole('row').filter({ hasText: 'https://127.0.0.1:9/first' });
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit webhook' });
  await edit.getByLabel('Endpoint URL (https)').fill('http://127.0.0.1:9/plain');
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Not saved' })).toContainText('https');

  await edit.getByLabel('Endpoint URL (https)').fill('https://127.0.0.1:9/edited');
  await edit.getByLabel('Custom data (JSON, up to 4 KB)').fill(JSON.stringify({ blob: 'x'.repeat(4200) }));
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await expect(page.getByRole('alert').filter({ hasText: '4 KB' })).toBeVisible();
  await edit.getByLabel('Custom data (JSON, up to 4 KB)').fill('{"team":"payments"}');
  await edit.getByRole('checkbox', { name: 'run.completed' }).uncheck();
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await expect(edit).toHaveCount(0);
  const edited = page.getByRole('row').filter({ hasText: 'https://127.0.0.1:9/edited' });
  await expect(edited).toContainText('run.failed');
  await expect(edited).not.toContainText('run.completed');
  const listed = await consoleFetch(page, 'GET', '/console/v1/webhooks');
  expect(listed.json.data[0]).toMatchObject({ customData: { team: 'payments' }, events: ['run.failed'] });

  const samples = page.getByRole('region', { name: 'Sample payloads' });
  await samples.getByText('run.failed', { exact: true }).click();
  await expect(samples.getByTestId('sample-run.failed')).toContainText('"status": "failed"');
  await expectAccessible(page);
});

test('a schedule targets a test, is edited, triggered now and lists its last runs', async ({ page }) => {
  const testId = await createTestNamed('scheduled by test');
  expect(testId).toBeTruthy();
  await signInAs(page);
  await page.goto(adminPath('schedules'));
  const form = page.getByRole('form', { name: 'Create a schedule' });
  await form.getByLabel('Schedule name').fill('Nightly single');
  await form.getByLabel('Cron expression').fill('0 2 * * *');
  await form.getByLabel('Time zone').fill('UTC');
  await form.getByLabel('A test or directory').check();
  await form.getByLabel('Target test or directory').selectOption({ label: 'scheduled by test' });
  await form.getByRole('button', { name: 'Create schedule' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Nightly single' });
  await expect(row).toContainText('test scheduled by test');

  await page.getByRole('button', { name: 'Edit Nightly single' }).click();
  const edit = page.getByRole('form', { name: 'Edit schedule' });
  await edit.getByLabel('Schedule name').fill('Nightly renamed');
  await edit.getByRole('button', { name: 'Save schedule' }).click();
  const renamed = page.getByRole('row').filter({ hasText: 'Nightly renamed' });
  await expect(renamed).toBeVisible();

  await page.getByRole('button', { name: 'Trigger now Nightly renamed' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Nightly renamed started run' })).toBeVisible();
  const runs = page.getByRole('region', { name: 'Last runs of Nightly renamed' });
  await expect(runs.getByRole('row')).toHaveCount(2);
  await expect(runs.getByRole('row').nth(1)).toContainText(/pending|queued|running|completed/);
  await expectAccessible(page);
});

test('an owner creates a project and a branch; a member is refused in the page and by the API', async ({
  page,
}) => {
  await signInAs(page);
  for (const [email, role] of [
    [memberEmail, 'member'],
    [adminEmail, 'admin'],
  ] as const) {
    const added = await consoleFetch(page, 'POST', '/console/v1/users', { email, password, role });
    expect(added.status).toBe(201);
  }
  await openAdminPage(page, 'Projects');
  await expect(page.getByRole('heading', { name: 'Projects and branches' })).toBeVisible();
  await page.getByRole('form', { name: 'Create a project' }).getByLabel('Project name').fill('E2E second');
  await page.getByRole('button', { name: 'Create project' }).click();
  const branches = page.getByRole('region', { name: 'Branches of E2E second' });
  await expect(branches.getByRole('row').filter({ hasText: 'main' })).toContainText('Default');
  await branches.getByLabel('Branch name').fill('feature-x');
  await branches.getByRole('button', { name: 'Create branch' }).click();
  await expect(branches.getByRole('row').filter({ hasText: 'feature-x' })).toContainText('main');
  await expectAccessible(page);

  await page.context().clearCookies();
  await signInAs(page, memberEmail, password);
  await page.goto(adminPath('projects'));
  // The page offers a member no project to create; the service refuses one all the same.
  await expect(page.getByRole('note')).toHaveText('Only owners and admins can create projects and branches.');
  await expect(page.getByRole('form', { name: 'Create a project' })).toHaveCount(0);
  const project = await consoleFetch(page, 'POST', '/console/v1/projects', { name: 'By a member' });
  expect(project).toMatchObject({
    status: 403,
    json: { message: 'This action needs an admin or owner role' },
  });
  const refused = await consoleFetch(
    page,
    'DELETE',
    '/console/v1/email-inboxes/00000000-0000-4000-8000-000000000000',
  );
  expect(refused.status).toBe(403);
});

test('billing is read-only for an admin (the API refuses) and editable by the install admin', async ({
  page,
}) => {
  await signInAs(page, adminEmail, password);
  await page.goto(adminPath('organization'));
  await expect(page.getByRole('note')).toContainText("only the install's administrators change them");
  await expect(page.getByRole('button', { name: 'Save limits' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Deactivate subscription' })).toBeDisabled();
  const quotas = page.getByRole('definition').filter({ hasText: "the install's default" });
  await expect(quotas).toHaveText([/^10 GiB /, /^5 /]);
  const refused = await consoleFetch(page, 'PUT', '/console/v1/organization/limits', { concurrencyCap: 4 });
  expect(refused).toMatchObject({ status: 403, json: { code: 'INSTALL_ADMIN_REQUIRED' } });
  await expectAccessible(page);

  await page.context().clearCookies();
  await signInAs(page);
  await page.goto(adminPath('organization'));
  await page.getByLabel('Concurrent runs (1–64)').fill('3');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Limits saved.' })).toBeVisible();
});

test('a run started from the console picks a preset and records it', async ({ page }) => {
  await createTestNamed('preset target');
  await signInAs(page);
  await page.goto(adminPath('presets'));
  const form = page.getByRole('form', { name: 'Create a preset' });
  await form.getByLabel('Preset name').fill('Two retries');
  await form.getByLabel('Run configuration (JSON)').fill('{"retries": 2}');
  await form.getByRole('button', { name: 'Create preset' }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Two retries' })).toBeVisible();

  const start = page.getByRole('form', { name: 'Start a run with a preset' });
  await start.getByLabel('What to run').selectOption({ label: 'preset target' });
  await start.getByLabel('Run with preset').selectOption({ label: 'Two retries' });
  await start.getByRole('button', { name: 'Start run' }).click();
  const link = start.getByRole('link', { name: /^open run / });
  await expect(link).toBeVisible();
  const runId = ((await link.getAttribute('href')) ?? '').split('/runs/')[1]?.split('?')[0] ?? '';
  const run = await apiKeyCall('GET', `/v1/test-runs/${runId}`);
  expect(run.json.data.metadata).toMatchObject({ preset: { name: 'Two retries' } });
  await expectAccessible(page);
});

test('the audit log names the actor of each of these actions', async ({ page }) => {
  await signInAs(page);
  await page.goto(adminPath('audit-log'));
  const table = page.getByRole('table');
  const rowOf = (action: string) =>
    table.getByRole('row').filter({ has: page.getByRole('cell', { name: action, exact: true }) });
  for (const action of [
    'DELETE /console/v1/email-inboxes/:inboxId/messages/:messageId',
    'PUT /console/v1/webhooks/:id',
    'POST /console/v1/schedules/:id/trigger',
    'POST /v1/tests/:testId/remote-run',
  ])
    await expect(rowOf(action).first()).toContainText(service.bootstrap.adminEmail);
  await expect(rowOf('PUT /console/v1/organization/limits').filter({ hasText: adminEmail })).toContainText(
    '403',
  );
  await expect(rowOf('POST /console/v1/projects').filter({ hasText: memberEmail })).toContainText('403');
  await expectAccessible(page);
});
