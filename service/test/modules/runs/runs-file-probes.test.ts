import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helper.ts';
import { attackerCiKey, multipart, waitForStatus } from './helpers.ts';

/**
 * A second organization's CI key tries, through every step it can write, to read the
 * service's files: its database in `DATA_DIR`, its environment (`/proc/<pid>/environ`, where
 * `SESSION_SECRET` lives) and the host's `/etc/passwd`, by `goto` (file:, view-source:, a
 * base URL of file:), a `request` step, a page script (fetch, an iframe, window.open from an
 * http page) and an upload step whose file name climbs out of the project. Every probe is
 * refused at save or fails its step, and nothing read reaches the report.
 */
describe('a run cannot read the service’s files through its steps', () => {
  let t: TestApp;
  let site: http.Server;
  let siteUrl = '';
  let attacker: { 'x-api-key': string; 'x-project-id': string };
  const sessionSecret = 'file-probe-session-secret-0123456789';

  beforeAll(async () => {
    site = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>Attacker</title><h1>attacker</h1><input type="file" id="upload">');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    t = await createTestApp({
      background: true,
      env: { RATE_LIMIT_PER_MINUTE: '100000', SESSION_SECRET: sessionSecret },
    });
    attacker = await attackerCiKey(t);
  });
  afterAll(async () => {
    await t?.close();
    site?.close();
  });

  const save = async (testData: Record<string, unknown>) => {
    const form = await multipart({ testData: JSON.stringify({ status: 'active', ...testData }) });
    return t.app.inject({
      method: 'POST',
      url: '/v1/tests',
      payload: form.payload,
      headers: { ...form.headers, ...attacker },
    });
  };
  const always = (name: string, action: Record<string, unknown>) => ({
    name,
    action,
    condition: { type: 'alwaysRun' },
  });

  it('refuses file:, view-source: and chrome: URLs of goto and request steps at save, naming the scheme', async () => {
    const database = `file://${path.join(t.dataDir, 'stepdeck.sqlite')}`;
    for (const [name, url] of [
      ['goto', database],
      ['goto', `file:///proc/${process.pid}/environ`],
      ['goto', 'view-source:file:///etc/passwd'],
      ['goto', 'chrome://version'],
      ['request', database],
    ]) {
      const action = name === 'goto' ? { name, url } : { name, method: 'GET', url };
      const response = await save({ name: 'probe', steps: [{ name: 'probe', action }] });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message, url).toMatch(/url must be an http or https URL .*is not allowed/);
    }
  });

  it('fails every file probe of goto, request and page scripts, and reports nothing read', async () => {
    const database = `file://${path.join(t.dataDir, 'stepdeck.sqlite')}`;
    const environ = `file:///proc/${process.pid}/environ`;
    // URLs that come from variables are only known at run time: the runtime refuses them there.
    const vars = {
      database,
      environ,
      viewSource: 'view-source:file:///etc/passwd',
      chrome: 'chrome://version',
    };
    const ui = await save({
      name: 'file probes',
      vars,
      steps: [
        always('goto database', { name: 'goto', url: '{{vars.database}}' }),
        always('goto environ', { name: 'goto', url: '{{vars.environ}}' }),
        always('goto view-source', { name: 'goto', url: '{{vars.viewSource}}' }),
        always('goto chrome', { name: 'goto', url: '{{vars.chrome}}' }),
        always('open site', { name: 'goto', url: siteUrl }),
        always('fetch environ', {
          name: 'evaluate',
          script: `fetch('${environ}').then((r) => r.text())`,
        }),
        always('iframe passwd', {
          name: 'evaluate',
          script: `new Promise((resolve) => { const f = document.createElement('iframe'); f.src = 'file:///etc/passwd'; f.onload = () => { try { resolve(f.contentDocument.body.innerText); } catch (e) { resolve('blocked: ' + e.name); } }; document.body.append(f); setTimeout(() => resolve('no load'), 3000); })`,
          variable: 'framed',
        }),
        always('show framed', {
          name: 'assertScript',
          script: `'{{vars.framed}}'`,
          matches: 'root:',
          timeout: 500,
        }),
        always('window.open passwd', {
          name: 'evaluate',
          script: `const w = window.open('file:///etc/passwd'); await new Promise((r) => setTimeout(r, 1000)); return w ? w.document.body.innerText : 'none';`,
        }),
        always('upload passwd', {
          name: 'setInputFiles',
          selector: '#upload',
          files: ['../../../../../../etc/passwd'],
        }),
      ],
    });
    expect(ui.statusCode, ui.body).toBe(200);
    const api = await save({
      name: 'file requests',
      metadata: { type: 'api' },
      vars,
      steps: [
        always('request environ', { name: 'request', method: 'GET', url: '{{vars.environ}}' }),
        always('request database', { name: 'request', method: 'GET', url: '{{vars.database}}' }),
      ],
    });
    expect(api.statusCode, api.body).toBe(200);
    const results = new Map<string, { status: string; error: string | null }>();
    for (const testId of [ui.json().data.id, api.json().data.id]) {
      const started = await t.app.inject({
        method: 'POST',
        url: `/v1/tests/${testId}/remote-run`,
        headers: attacker,
        payload: { config: { timeout: 60_000, use: { navigationTimeout: 5_000, actionTimeout: 5_000 } } },
      });
      expect(started.statusCode, started.body).toBe(200);
      const apiCall = (inject: Parameters<TestApp['api']>[0]) =>
        t.app.inject({ ...inject, headers: attacker });
      const run = await waitForStatus(
        { ...t, api: apiCall },
        started.json().data.runId,
        ['completed', 'failed'],
        150_000,
      );
      const report = JSON.stringify(run.report);
      expect(report).not.toContain(sessionSecret);
      expect(report).not.toContain('root:x:0:0');
      expect(report).not.toContain('SQLite format 3');
      const tests = (
        run.report as {
          runTypeInfo: {
            testResults: Array<{ steps?: Array<{ name: string; status: string; error: string | null }> }>;
          };
        }
      ).runTypeInfo.testResults;
      for (const step of tests.flatMap((test) => test.steps ?? [])) results.set(step.name, step);
    }
    const refused = (name: string, text: string | RegExp) => {
      expect(results.get(name)?.status, name).toBe('failed');
      expect(results.get(name)?.error ?? '', name).toMatch(text);
    };
    refused('goto database', 'only http and https URLs may be opened; "file:" is not allowed');
    refused('goto environ', '"file:" is not allowed');
    refused('goto view-source', '"view-source:" is not allowed');
    refused('goto chrome', '"chrome:" is not allowed');
    refused('request environ', '"file:" is not allowed');
    refused('request database', '"file:" is not allowed');
    expect(results.get('open site')?.status).toBe('passed');
    refused('fetch environ', 'the page script failed');
    // The frame never shows the file: the assertion on its text fails.
    refused('show framed', /match the pattern/);
    refused('upload passwd', /passwd|file/i);
  }, 360_000);
});
