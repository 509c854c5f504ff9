import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import {
  makeCertificate,
  type Receiver,
  startReceiver,
} from '../../service/test/modules/webhooks/receiver.ts';
import { expectAccessible, signIn, waitingTest } from './fixtures.ts';
import { type RunningService, startService } from './service.ts';

/**
 * Webhooks page against a service of its own that trusts a throwaway CA (NODE_EXTRA_CA_CERTS),
 * delivering to a real HTTPS receiver on loopback.
 */
let service: RunningService;
let receiver: Receiver;
let certDir: string;

test.beforeAll(async () => {
  const certificate = makeCertificate();
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-e2e-ca-'));
  const certFile = path.join(certDir, 'ca.pem');
  fs.writeFileSync(certFile, certificate.cert);
  receiver = await startReceiver(certificate);
  service = await startService({ NODE_EXTRA_CA_CERTS: certFile });
});
test.afterAll(async () => {
  await receiver?.close();
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
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  await expectAccessible(page);

  const form = page.getByRole('form', { name: 'Create a webhook' });
  // The spec's URL rule, in the service's words: plain http is refused.
  await form.getByLabel('Endpoint URL (https)').fill(receiver.url('/hook').replace('https:', 'http:'));
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('alert')).toContainText('https');

  await form.getByLabel('Endpoint URL (https)').fill(receiver.url('/hook'));
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

  const [request] = await receiver.waitFor(1, 90_000);
  const body = request?.rawBody.toString('utf8') ?? '';
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
  await expectAccessible(page);
});
