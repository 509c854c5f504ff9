import { expect, test } from '@playwright/test';
import { type FakeS3, startFakeS3 } from '../../service/test/adapters/blobs/s3rver.ts';
import { expectAccessible, failingUiTest, signIn, uiRunConfig } from './fixtures.ts';
import { type RunningService, startService } from './service.ts';

/**
 * Playwright's trace viewer on a trace stored on S3 (s3rver on loopback): the viewer's service
 * worker fetches the trace through the console's artifact URL, which the service streams from
 * the bucket.
 */
let s3: FakeS3;
let service: RunningService;
// A service and s3rver of its own plus a real run: room for a loaded CI machine.
test.describe.configure({ timeout: 300_000 });

test.beforeAll(async () => {
  s3 = await startFakeS3();
  service = await startService(s3.env);
});
test.afterAll(async () => {
  await service?.stop();
  await s3?.close();
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
  // biome-ignore lint/suspicious/noExplicitAny: each caller asserts the fields it reads
  return { status: response.status, json: (await response.json()) as { data: any } };
}

test("opens Playwright's trace viewer on a trace kept on S3", async ({ page }) => {
  const form = new FormData();
  form.append('testData', JSON.stringify({ status: 'active', ...failingUiTest('s3 trace') }));
  const created = await api('POST', '/v1/tests', form);
  expect(created.status).toBe(200);
  const started = await api('POST', `/v1/tests/${created.json.data.id}/remote-run`, {
    config: uiRunConfig(),
  });
  expect(started.status).toBe(200);
  const runId = started.json.data.runId as string;
  await expect
    .poll(async () => (await api('GET', `/v1/test-runs/${runId}`)).json.data.status, { timeout: 90_000 })
    .toBe('failed');
  // The trace is in the bucket: the API hands out a presigned S3 address for it.
  const artifacts = (await api('GET', `/v1/test-runs/${runId}/artifacts`)).json.data as Array<{
    key: string;
    type: string;
    url: string;
  }>;
  const trace = artifacts.find((artifact) => artifact.type === 'trace');
  expect(trace?.url.startsWith(s3.endpoint)).toBe(true);

  await page.goto(`${service.url}/console/sign-in`);
  await signIn(page, service.bootstrap.adminEmail, service.bootstrap.adminPassword);
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  await page.goto(`${service.url}/console/projects/${service.bootstrap.projectId}/runs/${runId}`);
  await page.getByRole('button', { name: 'Open trace' }).click();
  const dialog = page.getByRole('dialog', { name: /Trace of s3 trace/ });
  await expect(dialog).toBeVisible();
  const viewer = page.frameLocator('iframe[title^="Playwright trace viewer"]');
  await expect(viewer.getByText(/› s3 trace/).first()).toBeVisible({ timeout: 60_000 });
  await expect(viewer.getByText('open', { exact: true }).first()).toBeVisible();
  await expect(viewer.getByText('check title', { exact: true }).first()).toBeVisible();
  await expectAccessible(page);
  // No error in the viewer (it shows one when it cannot read the trace).
  await expect(viewer.getByText(/Could not load trace|Unable to load trace/i)).toHaveCount(0);
  // What the viewer's service worker read (one GET of the whole file: Playwright's viewer asks
  // zip.js for no HEAD and no ranges): the bucket's bytes, through the console's origin.
  const proxied = await page.request.get(
    `${service.url}/console/v1/test-runs/${runId}/artifact?key=${encodeURIComponent(trace?.key ?? '')}`,
  );
  expect(proxied.status()).toBe(200);
  expect(proxied.headers()['content-type']).toBe('application/zip');
  const fromBucket = Buffer.from(await (await fetch(trace?.url ?? '')).arrayBuffer());
  const body = await proxied.body();
  expect(body.subarray(0, 2).toString('latin1')).toBe('PK');
  expect(body.equals(fromBucket)).toBe(true);
});
