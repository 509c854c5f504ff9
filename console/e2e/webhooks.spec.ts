import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { expectAccessible, expectDateTimes, openAdminPage, signIn, waitingTest } from './fixtures.ts';
import { type RunningService, startService } from './service.ts';

/**
 * Webhooks page against a service of its own that trusts a throwaway CA (NODE_EXTRA_CA_CERTS),
 * delivering to a real HTTPS receiver on loopback.
 */
let service: RunningService;
let receiver: https.Server;
let receiverUrl: string;
let certDir: string;
const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];

test.beforeAll(async () => {
  // A throwaway self-signed certificate for 127.0.0.1, trusted by this test's service only.
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-ca-'));
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
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  service = await startService({ NODE_EXTRA_CA_CERTS: certFile });
});
test.afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await service?.stop();
  if (certDir) fs.rmSync(certDir, { recursive: true, force: true });
});

async function api(method: string, pathname: string, body?: unknown) {
  const response = await fetch(`${service.url}${pathname}`, {
    method,
    headers: {
      'x-api-key': service.bootstrap.apiKey,
      'x-project-id': service.bootstrap.projectId,
      ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : body instanceof FormData ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as { data: Record<string, unknown> } };
}

const sign = (secret: string, body: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('hex');

test('a rotated webhook secret signs the next delivery, shown with its exact body', async ({ page }) => {
  await page.goto(`${service.url}/console/sign-in`);
  await signIn(page, service.bootstrap.adminEmail, service.bootstrap.adminPassword);
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  await openAdminPage(page, 'Webhooks');
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  // No webhook yet: the page says what one is and where to start, not an empty table.
  await expect(page.getByText('No webhooks yet.')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Webhooks of the organization' })).toHaveCount(0);
  await page.screenshot({ path: '/tmp/h43/webhooks-empty.png', fullPage: true });
  await expectAccessible(page);

  const form = page.getByRole('form', { name: 'Create a webhook' });
  // The spec's URL rule, in the service's words: plain http is refused.
  await form.getByLabel('Endpoint URL (https)').fill(receiverUrl.replace('https:', 'http:'));
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('alert')).toContainText('https');

  await form.getByLabel('Endpoint URL (https)').fill(receiverUrl);
  await form.getByLabel('Custom data (JSON, up to 4 KB)').fill('{"team":"qa"}');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  const first = (await page.getByTestId('webhook-secret').textContent()) ?? '';
  expect(first).toMatch(/^whsec_/);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('webhook-secret')).toHaveCount(0);

  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Secret rotated' })).toBeVisible();
  const rotated = (await page.getByTestId('webhook-secret').textContent()) ?? '';
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(first);

  const form2 = new FormData();
  form2.append('testData', JSON.stringify({ status: 'active', ...waitingTest('webhook e2e', 50) }));
  const created = await api('POST', '/v1/tests', form2);
  expect(created.status).toBe(200);
  const started = await api('POST', `/v1/tests/${created.json.data.id}/remote-run`, {});
  expect(started.status).toBe(200);
  const runId = started.json.data.runId as string;

  await expect.poll(() => received.length, { timeout: 90_000 }).toBeGreaterThan(0);
  const request = received[0];
  const body = request?.body ?? '';
  expect(JSON.parse(body)).toMatchObject({ run: { id: runId }, custom: { team: 'qa' } });
  expect(request?.headers['x-service-signature']).toBe(sign(rotated, body));
  expect(request?.headers['x-service-signature']).not.toBe(sign(first, body));

  await page.getByRole('button', { name: 'Deliveries' }).click();
  const deliveries = page.getByRole('region', { name: 'Deliveries of the webhook' });
  const row = deliveries.getByRole('row').filter({ hasText: 'run.completed' });
  await expect(row).toContainText('succeeded');
  await expect(row).toContainText('200');
  await row.getByText('Body').click();
  await expect(row.locator('pre')).toHaveText(body);
  // Each delivery says when it was made (in the console's format, its zone named) and links its run.
  expect(await expectDateTimes(row)).toBe(1);
  await expect(row.getByRole('link', { name: runId.slice(0, 8) })).toHaveAttribute(
    'href',
    new RegExp(`/runs/${runId}$`),
  );
  await page.screenshot({ path: '/tmp/h43/webhooks-deliveries.png', fullPage: true });
  await expectAccessible(page);
});
