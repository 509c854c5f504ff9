import type { TestApp } from '../../helper.ts';
import { createTest, type Site } from './helpers.ts';

/**
 * Helpers of the orchestrated (split) run tests: UI tests that open a page in Chromium and
 * wait on the loopback site (`/slow?ms=N`), so their durations are known and I/O-bound.
 */

/** A UI test: opens the page, then a request that the site answers after `ms`. */
export const slowUiTest = (site: Site, name: string, ms: number, extra: Record<string, unknown> = {}) => ({
  name,
  steps: [
    { name: 'open', action: { name: 'goto', url: `${site.url}/?${encodeURIComponent(name)}` } },
    { name: 'title', action: { name: 'assertText', selector: '#title', value: 'Hello runs' } },
    {
      name: 'wait on the site',
      action: {
        name: 'request',
        method: 'GET',
        url: `${site.url}/slow?ms=${ms}&t=${encodeURIComponent(name)}`,
      },
    },
  ],
  ...extra,
});

/** A UI test that fails on its second step. */
export const failingUiTest = (site: Site, name: string) => ({
  name,
  steps: [
    { name: 'open', action: { name: 'goto', url: `${site.url}/?${encodeURIComponent(name)}` } },
    { name: 'wrong title', action: { name: 'assertText', selector: '#title', value: 'Something else' } },
  ],
});

export async function createTests(t: TestApp, bodies: Array<Record<string, unknown>>): Promise<string[]> {
  const ids: string[] = [];
  for (const body of bodies) ids.push(await createTest(t, body));
  return ids;
}

export async function triggerBulk(t: TestApp, testIds: string[], config: Record<string, unknown> = {}) {
  const response = await t.api({
    method: 'POST',
    url: '/v1/tests/remote-run',
    payload: { testIds, config: { timeout: 180000, use: { actionTimeout: 60000 }, ...config } },
  });
  if (response.statusCode !== 200) throw new Error(`trigger failed: ${response.statusCode} ${response.body}`);
  return response.json().data.runId as string;
}

export async function batchesOf(t: TestApp, runId: string) {
  return t.ctx.db
    .selectFrom('runBatches')
    .selectAll()
    .where('runId', '=', runId)
    .orderBy('position')
    .execute();
}

/** Blob keys stored for a run (artifacts) and its scratch area (`run-work/`). */
export async function keysOf(t: TestApp, runId: string) {
  return {
    artifacts: (await t.ctx.blobs.list(`runs/${runId}/`)).map((key) => key.slice(`runs/${runId}/`.length)),
    scratch: await t.ctx.blobs.list(`run-work/${runId}/`),
  };
}
