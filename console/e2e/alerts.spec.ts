import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { editorPath } from './authoring-fixtures.ts';
import {
  createTest,
  expectAccessible,
  mainNav,
  openAdminPage,
  signedInTest,
  signIn,
  waitingTest,
} from './fixtures.ts';
import { type RunningService, startService } from './service.ts';

/**
 * The install settings and a project's alert channels, against a service of its own that trusts
 * a throwaway CA, posting to a real HTTPS receiver on loopback that the install admin allows.
 */
let service: RunningService;
let receiver: https.Server;
let receiverPort: number;
let certDir: string;
const received: Array<{ url: string; body: Record<string, unknown> }> = [];

test.beforeAll(async () => {
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-alerts-'));
  const certFile = path.join(certDir, 'cert.pem');
  const keyFile = path.join(certDir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
      .concat(['-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1'])
      .concat(['-addext', 'subjectAltName=IP:127.0.0.1']),
    { stdio: 'ignore' },
  );
  receiver = https.createServer(
    { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ url: request.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        response.writeHead(200).end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  // No environment allow-list: the install admin's list is what lets the receiver in.
  service = await startService({ NODE_EXTRA_CA_CERTS: certFile, WEBHOOK_ALLOWED_TARGETS: '' });
});
test.afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await service?.stop();
  if (certDir) fs.rmSync(certDir, { recursive: true, force: true });
});

test('an install admin allows a private receiver and sets the SMTP relay; an admin adds Slack and email alerts', async ({
  page,
}) => {
  // Three pages checked with axe and a real run, on a loaded 2-core machine.
  test.setTimeout(540_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${service.url}/console/sign-in`);
  await signIn(page, service.bootstrap.adminEmail, service.bootstrap.adminPassword);
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();

  // Alerts first: the empty state says what a channel is; a loopback URL is refused by name.
  await openAdminPage(page, 'Alerts');
  await expect(page.getByRole('heading', { name: 'Alerts', level: 1 })).toBeVisible();
  await expect(page.getByText('No alert channels yet.')).toBeVisible();
  await expectAccessible(page);
  const form = page.getByRole('form', { name: 'Create an alert channel' });
  await form.getByLabel(/^Name/).fill('QA channel');
  await form
    .getByLabel(/^Incoming-webhook URL/)
    .fill(`https://127.0.0.1:${receiverPort}/services/T1/B2/secret`);
  await form.getByRole('button', { name: 'Create channel' }).click();
  await expect(page.getByText(/url must not point to a private, loopback/)).toBeVisible();

  // The install settings: the allow-list and the SMTP relay (its password is write-only).
  await mainNav(page).getByRole('link', { name: 'Install' }).click();
  const settings = page.getByRole('form', { name: 'Install settings' });
  await expect(settings).toBeVisible();
  await settings.getByLabel(/^Allowed private addresses/).fill('127.0.0.1');
  await settings.getByLabel(/^SMTP host/).fill('smtp.example.test');
  await settings.getByLabel(/^SMTP port/).fill('587');
  await settings.getByLabel(/^SMTP user/).fill('alerts');
  await settings.getByLabel(/^SMTP password/).fill('relay-password-e2e');
  await settings.getByLabel(/^From address/).fill('stepdeck@example.test');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByText('Settings saved.')).toBeVisible();
  await expect(settings.getByText('A password is stored; leave empty to keep it.')).toBeVisible();
  await expect(settings.getByLabel(/^SMTP password/)).toHaveValue('');
  await expectAccessible(page);
  await page.screenshot({ path: test.info().outputPath('console-install-settings.png'), fullPage: true });

  // Back to Alerts: the same URL is accepted now; a test message reaches the receiver.
  await openAdminPage(page, 'Alerts');
  await form.getByLabel(/^Name/).fill('QA channel');
  await form
    .getByLabel(/^Incoming-webhook URL/)
    .fill(`https://127.0.0.1:${receiverPort}/services/T1/B2/secret`);
  await form.getByRole('button', { name: 'Create channel' }).click();
  const table = page.getByRole('table', { name: 'Alert channels of the project' });
  await expect(table.getByRole('row').filter({ hasText: 'QA channel' })).toContainText(
    'first failure, recovery',
  );
  await page.getByRole('button', { name: 'Send test message to QA channel' }).click();
  await expect(page.getByText('A test message was sent to QA channel.')).toBeVisible();
  expect(received.map((entry) => entry.url)).toEqual(['/services/T1/B2/secret']);
  expect(String(received[0]?.body.text)).toMatch(/^Test alert from Stepdeck/);

  // Edit: the form comes filled in; the URL left as shown is kept, a bad one is named on its field.
  await page.getByRole('button', { name: 'Edit QA channel' }).click();
  const edit = page.getByRole('form', { name: 'Edit alert channel QA channel' });
  await expect(edit.getByLabel(/^Name/)).toHaveValue('QA channel');
  const urlField = edit.getByLabel(/^Incoming-webhook URL/);
  await expect(urlField).toHaveValue(`https://127.0.0.1:${receiverPort}/services/T1/B2/secret`);
  await urlField.fill('http://chat.example.test/hook');
  await edit.getByRole('button', { name: 'Save channel' }).click();
  await expect(urlField).toHaveAttribute('aria-invalid', 'true');
  await expect(urlField).toHaveAccessibleDescription('url must use https://');
  await expectAccessible(page);
  await page.screenshot({ path: test.info().outputPath('console-alert-edit.png'), fullPage: true });
  await urlField.fill(`https://127.0.0.1:${receiverPort}/services/T1/B2/secret`);
  await edit.getByLabel(/^Name/).fill('QA alerts');
  await edit.getByLabel('Every failure, not only the first after a pass').check();
  await edit.getByRole('button', { name: 'Save channel' }).click();
  await expect(edit).toBeHidden();
  const edited = table.getByRole('row').filter({ hasText: 'QA alerts' });
  await expect(edited).toContainText('every failure, recovery');
  await expect(edited).toContainText(`https://127.0.0.1:${receiverPort}/services/T1/B2/secret`);
  await page.getByRole('button', { name: 'Send test message to QA alerts' }).click();
  await expect(page.getByText('A test message was sent to QA alerts.')).toBeVisible();
  expect(received.map((entry) => entry.url)).toEqual(['/services/T1/B2/secret', '/services/T1/B2/secret']);
  await expect(page.getByRole('region', { name: 'Latest alerts of QA alerts' })).toContainText(
    'No alert sent yet',
  );

  await form.getByLabel(/^Kind/).selectOption('email');
  await form.getByLabel(/^Name/).fill('QA leads');
  await form.getByLabel(/^Recipients/).fill('qa@example.test, lead@example.test');
  await form.getByLabel('Every failure, not only the first after a pass').check();
  await form.getByRole('button', { name: 'Create channel' }).click();
  await expect(table.getByRole('row').filter({ hasText: 'QA leads' })).toContainText(
    'qa@example.test, lead@example.test',
  );
  await expect(table.getByRole('row').filter({ hasText: 'QA leads' })).toContainText(
    'every failure, recovery',
  );

  // A failed run: each channel's latest alerts say how delivery went. Slack's receiver takes it;
  // the relay's host does not resolve, so the email is retried with the relay's error shown.
  const headers = { 'x-api-key': service.bootstrap.apiKey, 'x-project-id': service.bootstrap.projectId };
  const testData = new FormData();
  testData.append(
    'testData',
    JSON.stringify({
      name: 'Orders API',
      status: 'active',
      metadata: { type: 'api' },
      steps: [
        { name: 'call', action: { name: 'request', method: 'GET', url: 'http://127.0.0.1:9/orders' } },
        { name: 'check', action: { name: 'assertStatus', value: 200 } },
      ],
    }),
  );
  const created = await fetch(`${service.url}/v1/tests`, { method: 'POST', headers, body: testData });
  expect(created.status).toBe(200);
  const testId = ((await created.json()) as { data: { id: string } }).data.id;
  const started = await fetch(`${service.url}/v1/tests/${testId}/remote-run`, { method: 'POST', headers });
  expect(started.status).toBe(200);
  const slackAlerts = page.getByRole('region', { name: 'Latest alerts of QA alerts' });
  const emailAlerts = page.getByRole('region', { name: 'Latest alerts of QA leads' });
  await expect(async () => {
    await page.reload();
    await expect(slackAlerts.getByRole('row').filter({ hasText: 'Run failed' })).toContainText('Delivered', {
      timeout: 1_000,
    });
  }).toPass({ timeout: 180_000 });
  const emailRow = emailAlerts.getByRole('row').filter({ hasText: 'Run failed' });
  await expect(emailRow).toContainText('Retrying');
  await expect(emailRow).toContainText('SMTP relay smtp.example.test:587 refused or failed');
  expect(received.at(-1)?.url).toBe('/services/T1/B2/secret');
  await expectAccessible(page);
  await page.screenshot({ path: test.info().outputPath('console-alerts.png'), fullPage: true });
  expect(errors).toEqual([]);
});

signedInTest(
  'the editor offers Firefox and WebKit only when installed, and says how to install them',
  async ({ page }) => {
    const testId = await createTest(waitingTest(`browsers ${Date.now().toString(36)}`, 10));
    await page.goto(editorPath(testId));
    const panel = page.locator('details.run-config');
    await panel.getByText('Run configuration').click();
    const browser = panel.getByLabel('Browser', { exact: true });
    await expect(browser.locator('option', { hasText: 'firefox (not installed)' })).toBeDisabled();
    await expect(browser.locator('option', { hasText: 'webkit (not installed)' })).toBeDisabled();
    await expect(browser.locator('option', { hasText: /^chromium$/ })).toBeEnabled();
    await expect(panel.getByText('npx playwright install firefox')).toBeVisible();
    await expectAccessible(page);
  },
);
