import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { TestApp } from '../../helper.ts';
import { waitForStatus } from '../runs/helpers.ts';

/**
 * Pages the tests visit: `/flaky` fails every other load (its text carries a changing
 * timestamp) until `flakyFixed`, `/broken` always fails, `/toggle` passes or fails as the test says.
 */
export async function startPages() {
  let flakyLoads = 0;
  const state = { toggleReady: true, flakyFixed: false };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let text = 'Ready';
    if (url.pathname === '/flaky')
      text = state.flakyFixed || ++flakyLoads % 2 === 1 ? 'Ready' : `Broken at ${new Date().toISOString()}`;
    else if (url.pathname === '/broken') text = `Broken, request ${Math.random()}`;
    else if (url.pathname === '/toggle') text = state.toggleReady ? 'Ready' : 'Down';
    response.setHeader('content-type', 'text/html');
    response.end(`<!doctype html><title>page</title><p id="state">${text}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const readyTest = (name: string, path: string) => ({
  name,
  steps: [
    { name: 'Open', action: { name: 'goto', url: path } },
    { name: 'Check', action: { name: 'assertText', selector: '#state', value: 'Ready' } },
  ],
});

/** Runs tests against the pages to their end, with no retry; their history written. */
export async function runToEnd(
  t: TestApp,
  baseURL: string,
  testIds: string[],
  metadata: Record<string, unknown>,
) {
  const response = await t.api({
    method: 'POST',
    url: '/v1/tests/remote-run',
    payload: {
      testIds,
      metadata,
      config: { retries: 0, use: { baseURL, actionTimeout: 1500 } },
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const runId = response.json().data.runId as string;
  const ended = await waitForStatus(t, runId, ['completed', 'failed']);
  await t.app.history.pending();
  return { runId, status: ended.status, metadata: ended.metadata as Record<string, unknown> };
}
