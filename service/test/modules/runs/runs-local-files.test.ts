import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { allArtifactFiles } from './artifacts.ts';
import { attackerCiKey, multipart, waitForStatus } from './helpers.ts';

/**
 * Reproduced as an attacker would do it: a CI key of a second organization with only
 * `tests:create`, `tests:run` and `testRuns:read` writes a test that opens a file of the
 * server (`goto file://<DATA_DIR>/…` then `assertText body`), hoping the failed assertion
 * carries the file's content. Refused at save time; the forms that only become `file:` after
 * templating or baseURL resolution are refused at run time, and the content appears nowhere.
 */
describe.each(databaseKinds)('a test cannot read the server’s files (%s)', (database) => {
  let t: TestApp;
  let attacker: { 'x-api-key': string; 'x-project-id': string };
  let canaryFile: string;
  const canary = `canary-${Math.random().toString(36).slice(2)}-server-secret`;

  const save = async (steps: unknown[], extra: Record<string, unknown> = {}) => {
    const form = await multipart({
      testData: JSON.stringify({ name: 'reads the server', status: 'active', steps, ...extra }),
    });
    return t.app.inject({
      method: 'POST',
      url: '/v1/tests',
      payload: form.payload,
      headers: { ...form.headers, ...attacker },
    });
  };
  const readBody = { name: 'read it', action: { name: 'assertText', selector: 'body', value: 'x' } };

  beforeAll(async () => {
    t = await createTestApp({ database, background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    canaryFile = path.join(t.dataDir, 'canary.json');
    fs.writeFileSync(canaryFile, JSON.stringify({ adminPassword: canary }));
    attacker = await attackerCiKey(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses other schemes in goto and request steps at save time, naming the step', async () => {
    const refused = [
      `file://${canaryFile}`,
      `file://${t.dataDir}/`,
      `FILE:${canaryFile}`,
      ` \tfi\tle:${canaryFile}`,
      `view-source:file://${canaryFile}`,
      'chrome://version',
      'javascript:alert(1)',
      'data:text/html,<h1>x</h1>',
      'ftp://example.com/',
      'about:config',
    ];
    for (const url of refused) {
      const response = await save([{ name: 'open the file', action: { name: 'goto', url } }, readBody]);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message, url).toMatch(
        /^step "open the file" \(testData\.steps\[0\]\): action\.url: url must be an http or https URL or a path relative to baseURL; "[a-z-]+:" is not allowed$/,
      );
    }
    const request = await save([
      { name: 'call', action: { name: 'request', method: 'GET', url: `file://${canaryFile}` } },
    ]);
    expect(request.statusCode).toBe(400);
    expect(request.json().message).toContain('step "call" (testData.steps[0]): action.url:');
    // Nothing was half-written.
    const list = await t.app.inject({ method: 'GET', url: '/v1/tests', headers: attacker });
    expect(list.json().pagination.total).toBe(0);

    // http(s), paths, templates, localhost:port and about:blank stay allowed.
    for (const url of [
      'https://example.com/',
      '/login',
      'login?next=/',
      '{{vars.site}}/x',
      'localhost:3000/',
      'about:blank',
    ]) {
      const response = await save([{ name: 'open', action: { name: 'goto', url } }]);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    }
  });

  it('refuses at run time what becomes file: only after templating or baseURL resolution', async () => {
    const saved = await save(
      [
        { name: 'open the file', action: { name: 'goto', url: '{{vars.target}}' } },
        readBody,
        {
          name: 'relative',
          condition: { type: 'alwaysRun' },
          action: { name: 'goto', url: path.basename(canaryFile) },
        },
        { ...readBody, name: 'read it again', condition: { type: 'alwaysRun' } },
        {
          name: 'call',
          condition: { type: 'alwaysRun' },
          action: { name: 'request', method: 'GET', url: '{{vars.target}}', variable: 'file' },
        },
      ],
      { vars: { target: `file://${canaryFile}` } },
    );
    expect(saved.statusCode, saved.body).toBe(200);
    const testId = saved.json().data.id as string;
    const started = await t.app.inject({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      headers: attacker,
      payload: { config: { use: { baseURL: `file://${t.dataDir}/`, trace: 'on', screenshot: 'on' } } },
    });
    expect(started.statusCode, started.body).toBe(200);
    const runId = started.json().data.runId as string;
    const run = await waitForStatus({ ...t, api: (i) => t.app.inject({ ...i, headers: attacker }) }, runId, [
      'completed',
      'failed',
    ]);
    expect(run.status).toBe('failed');
    const body = JSON.stringify(run);
    expect(body).toContain('goto: only http and https URLs may be opened; \\"file:\\" is not allowed');
    expect(body).not.toContain(canary);

    const files = await allArtifactFiles(
      { ...t, api: (i) => t.app.inject({ ...i, headers: attacker }) },
      runId,
    );
    expect(files.some((file) => file.name.endsWith('trace.zip'))).toBe(true);
    for (const file of files) expect(file.data.includes(canary), file.name).toBe(false);
  });
});
