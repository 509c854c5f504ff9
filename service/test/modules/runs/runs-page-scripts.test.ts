import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { allArtifactFiles } from './artifacts.ts';
import { createTest, waitForStatus } from './helpers.ts';

/**
 * The page-script steps (`evaluate`, `assertScript`, `dispatchEvent`) tried as an attacker
 * would: a script that reads a secret back and shows it encoded in a failure, and a script that
 * never returns. (What a page script can reach on the network is in runs-egress.test.ts.)
 */
describe('page-script steps as an attacker writes them', () => {
  let t: TestApp;
  let server: http.Server;
  let base = '';
  const secret = 'Hunter2-page-script-secret';
  const forms = {
    raw: secret,
    base64: Buffer.from(secret).toString('base64'),
    'URL-encoded': encodeURIComponent(`${secret} `),
    'JSON-quoted': JSON.stringify(secret),
  };

  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Scripts</title><h1 id="heading">Scripts</h1>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'PW', value: secret },
    });
    expect(response.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const run = async (testId: string, use: Record<string, unknown>, config: Record<string, unknown> = {}) => {
    const response = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { config: { ...config, use: { baseURL: base, ...use } } },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.runId as string;
  };

  it('keeps a secret a page script returns, encoded or not, out of failures, variables and artifacts', async () => {
    const testId = await createTest(t, {
      name: 'reads a secret back',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'plain', action: { name: 'evaluate', script: `'{{secrets.PW}}'`, variable: 'plain' } },
        {
          name: 'encoded',
          action: { name: 'evaluate', script: `btoa('{{secrets.PW}}')`, variable: 'encoded' },
        },
        {
          name: 'show it',
          action: { name: 'assertScript', script: `'{{vars.encoded}}'`, equals: 'nothing', timeout: 1_000 },
          condition: { type: 'alwaysRun' },
        },
        {
          name: 'show it plainly',
          action: {
            name: 'assertScript',
            script: `JSON.stringify({ value: '{{vars.plain}}', url: encodeURIComponent('{{vars.plain}} ') })`,
            matches: '^nothing$',
            timeout: 1_000,
          },
          condition: { type: 'alwaysRun' },
        },
        {
          name: 'fail with it',
          action: { name: 'evaluate', script: `throw new Error('leak ' + '{{secrets.PW}}')` },
          condition: { type: 'alwaysRun' },
        },
      ],
    });
    const runId = await run(testId, { trace: 'on', screenshot: 'on' });
    const finished = await waitForStatus(t, runId, ['completed', 'failed'], 180_000);
    expect(finished.runnerError ?? null).toBeNull();
    const report = JSON.stringify(finished.report);
    // The steps did run and failed on the values they read: the failures say so, redacted.
    expect(report).toContain('***');
    expect(report).toContain('the page script failed: Error: leak ***');
    const leaks: string[] = [];
    for (const [name, form] of Object.entries(forms))
      if (report.includes(form)) leaks.push(`report: ${name}`);
    for (const file of await allArtifactFiles(t, runId))
      for (const [name, form] of Object.entries(forms))
        if (file.data.toString('latin1').includes(form)) leaks.push(`${file.name}: ${name}`);
    expect(leaks).toEqual([]);
  }, 240_000);

  it('ends a script that never returns at the test timeout, and the service answers meanwhile', async () => {
    const testId = await createTest(t, {
      name: 'spins',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'spin', action: { name: 'evaluate', script: 'while (true) {}' } },
      ],
    });
    const started = Date.now();
    // The test's own timeout bounds what a step may take; page.evaluate has no timeout of its own.
    const runId = await run(testId, {}, { timeout: 10_000 });
    const finishedOrHealthy = async () => {
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
    };
    const polling = (async () => {
      for (let i = 0; i < 20; i++) {
        await finishedOrHealthy();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const finished = await waitForStatus(t, runId, ['completed', 'failed'], 150_000);
    await polling;
    const tests = (
      finished.report as { runTypeInfo: { testResults: Array<{ status: string; errorMessage: string }> } }
    ).runTypeInfo.testResults;
    expect(tests[0]?.status).toMatch(/failed|timedOut/);
    expect(tests[0]?.errorMessage).toMatch(/timeout|timed out/i);
    expect(Date.now() - started).toBeLessThan(140_000);

    // The runner is free again: the next run passes.
    const next = await createTest(t, {
      name: 'after the spin',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/' } },
        { name: 'read', action: { name: 'assertScript', script: 'document.title', equals: 'Scripts' } },
      ],
    });
    const after = await waitForStatus(t, await run(next, {}), ['completed', 'failed'], 120_000);
    expect(after.status).toBe('completed');
  }, 360_000);
});
