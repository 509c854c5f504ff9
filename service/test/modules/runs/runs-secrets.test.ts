import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { expand, unzip } from './artifacts.ts';
import { createTest, type Site, startSite, waitForStatus } from './helpers.ts';

/**
 * Secrets kept out of artifacts: a test types a secret with `fill` and sends it in a request
 * header and body with the trace on; no stored artifact may contain it in any form.
 */
describe('run artifacts: secrets redacted, bundle equal to the pw export', () => {
  let t: TestApp;
  let site: Site;
  const secret = 'Sek rit/9f3a+"Zq&7<x>';
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replaceAll('%20', '+'),
    'Sek rit/9f3a',
    '9f3a+',
  ];

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ background: true, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'TOKEN', value: secret },
    });
    expect(response.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('redacts fill values and request headers from traces, the HTML report, JSON and log', async () => {
    const testId = await createTest(t, {
      name: 'types a secret',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/page' } },
        { name: 'type', action: { name: 'fill', selector: '#field', value: '{{secrets.TOKEN}}' } },
        { name: 'kept', action: { name: 'assertValue', selector: '#field', value: '{{secrets.TOKEN}}' } },
        {
          name: 'call',
          action: {
            name: 'request',
            method: 'POST',
            url: '/status?code=200&secret=1',
            headers: { authorization: 'Bearer {{secrets.TOKEN}}' },
            body: { token: '{{secrets.TOKEN}}' },
          },
        },
        { name: 'status', action: { name: 'assertStatus', value: 200 } },
      ],
    });
    const response = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: { config: { use: { baseURL: site.url, trace: 'on', screenshot: 'off' } } },
    });
    expect(response.statusCode).toBe(200);
    const runId = response.json().data.runId as string;
    const run = await waitForStatus(t, runId, ['completed', 'failed']);
    expect(run.runnerError ?? null).toBeNull();
    expect(run.status).toBe('completed');
    // The secret was really used: typed, asserted, and sent to the site.
    expect(site.headers.get('/status?code=200&secret=1')?.authorization).toBe(`Bearer ${secret}`);

    const artifacts = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/artifacts` })).json()
      .data as Array<{ key: string; type: string; url: string }>;
    const keys = artifacts.map((artifact) => artifact.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        'bundle.tgz',
        'playwright-report.tar.gz',
        'test-results.json',
        'test-run.log',
        'tests/types a secret/trace.zip',
      ]),
    );

    const files: Array<{ name: string; data: Buffer }> = [];
    for (const artifact of artifacts) {
      const download = await t.app.inject({
        method: 'GET',
        url: artifact.url.slice(t.config.publicUrl.length),
      });
      expect(download.statusCode).toBe(200);
      const name = artifact.key.endsWith('.tgz') ? `${artifact.key.slice(0, -4)}.tar.gz` : artifact.key;
      files.push(...(await expand(name, download.rawPayload)));
    }
    // Archives were opened: the report's traces and its embedded data zip were searched too.
    expect(
      files.some(
        (file) =>
          file.name.includes('playwright-report.tar.gz:') && /\.zip:(\d+-)?trace\.trace$/.test(file.name),
      ),
    ).toBe(true);
    expect(files.some((file) => file.name.includes('index.html:embedded.zip:'))).toBe(true);
    for (const file of files) {
      const text = file.data.toString('latin1');
      for (const form of forms)
        expect(text.includes(Buffer.from(form).toString('latin1')), `${form} in ${file.name}`).toBe(false);
    }

    // The trace is still a valid trace: same structure, every event line parses, the fill and
    // the header carry the placeholder instead of the value.
    const trace = files.filter((file) => file.name.startsWith('tests/types a secret/trace.zip:'));
    const names = trace.map((file) => file.name.split(':').slice(1).join(':'));
    expect(names.some((name) => /^(\d+-)?trace\.trace$/.test(name))).toBe(true);
    expect(names.some((name) => /^(\d+-)?trace\.network$/.test(name))).toBe(true);
    for (const file of trace.filter((entry) => /\.(trace|network)$/.test(entry.name))) {
      for (const line of file.data.toString('utf8').split('\n').filter(Boolean))
        expect(() => JSON.parse(line)).not.toThrow();
    }
    const joined = (suffix: RegExp) =>
      trace
        .filter((file) => suffix.test(file.name))
        .map((file) => file.data.toString('utf8'))
        .join('\n');
    expect(joined(/trace\.trace$/)).toContain('"value":"***"');
    expect(joined(/trace\.network$/)).toContain('Bearer ***');
  });
  it('redacts a Basic password and a secret header of the run config, base64 included', async () => {
    const testId = await createTest(t, {
      name: 'signs in with Basic',
      steps: [
        { name: 'open', action: { name: 'goto', url: '/basic' } },
        { name: 'in', action: { name: 'assertText', selector: '#title', value: 'Hello runs' } },
      ],
    });
    const response = await t.api({
      method: 'POST',
      url: `/v1/tests/${testId}/remote-run`,
      payload: {
        config: {
          httpCredentials: { username: 'ada', password: '{{secrets.TOKEN}}' },
          extraHTTPHeaders: { 'x-api-key': '{{secrets.TOKEN}}' },
          use: { baseURL: site.url, trace: 'on', screenshot: 'on' },
        },
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const runId = response.json().data.runId as string;
    const run = await waitForStatus(t, runId, ['completed', 'failed']);
    expect(run.runnerError ?? null).toBeNull();
    expect(run.status).toBe('completed');
    // The browser answered the challenge with the secret, and sent the header.
    const basic = `Basic ${Buffer.from(`ada:${secret}`).toString('base64')}`;
    expect(site.headers.get('/basic')?.authorization).toBe(basic);
    expect(site.headers.get('/basic')?.['x-api-key']).toBe(secret);

    const artifacts = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/artifacts` })).json()
      .data as Array<{ key: string; url: string }>;
    expect(artifacts.map((artifact) => artifact.key)).toContain('tests/signs in with Basic/trace.zip');
    const files: Array<{ name: string; data: Buffer }> = [];
    for (const artifact of artifacts) {
      const download = await t.app.inject({
        method: 'GET',
        url: artifact.url.slice(t.config.publicUrl.length),
      });
      const name = artifact.key.endsWith('.tgz') ? `${artifact.key.slice(0, -4)}.tar.gz` : artifact.key;
      files.push(...(await expand(name, download.rawPayload)));
    }
    const network = files
      .filter((file) => /^tests\/signs in with Basic\/trace\.zip:(\d+-)?trace\.network$/.test(file.name))
      .map((file) => file.data.toString('utf8'))
      .join('\n');
    // The trace still shows the request to /basic, with the header's value replaced.
    expect(network).toMatch(/"url":"[^"]*\/basic"/);
    expect(network).toContain('{"name":"x-api-key","value":"***"}');
    const leaks = [...forms, basic.slice('Basic '.length), Buffer.from(secret).toString('base64')];
    for (const file of files) {
      const text = file.data.toString('latin1');
      for (const form of leaks)
        expect(text.includes(Buffer.from(form).toString('latin1')), `${form} in ${file.name}`).toBe(false);
    }
  });

  it('stores as bundle.tgz exactly the project POST /v1/tests/export (format pw) produces', async () => {
    const testId = await createTest(t, {
      name: 'bundle check',
      metadata: { type: 'api' },
      vars: { who: 'ada' },
      steps: [
        {
          name: 'call',
          action: {
            name: 'request',
            method: 'GET',
            url: `${site.url}/status?code=200&bundle=1`,
            headers: { 'x-token': '{{secrets.TOKEN}}', 'x-who': '{{vars.who}}' },
          },
        },
        { name: 'ok', action: { name: 'assertStatus', value: 200 } },
      ],
    });
    const runId = (await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` })).json().data
      .runId as string;
    expect((await waitForStatus(t, runId, ['completed', 'failed'])).status).toBe('completed');
    const artifacts = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/artifacts` })).json()
      .data as Array<{ key: string; url: string }>;
    const bundle = artifacts.find((artifact) => artifact.key === 'bundle.tgz') as { url: string };
    const download = await t.app.inject({ method: 'GET', url: bundle.url.slice(t.config.publicUrl.length) });
    const fromRun = new Map(
      (await expand('bundle.tar.gz', download.rawPayload))
        .filter((file) => file.name.startsWith('bundle.tar.gz:x/'))
        .map((file) => [file.name.slice('bundle.tar.gz:x/'.length), file.data.toString('utf8')]),
    );
    const exported = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { testIds: [testId], format: 'pw' },
    });
    expect(exported.statusCode).toBe(200);
    const fromExport = new Map(
      (await unzip(exported.rawPayload))
        .filter((entry) => !entry.name.endsWith('/'))
        .map((entry) => [entry.name, entry.data.toString('utf8')]),
    );
    expect([...fromRun.keys()].sort()).toEqual([...fromExport.keys()].sort());
    for (const [name, content] of fromExport) expect(fromRun.get(name), name).toBe(content);
    // Per-test artifacts are keyed tests/<test name>/<file>.
    for (const artifact of artifacts.filter((entry) => entry.key.startsWith('tests/')))
      expect(artifact.key).toMatch(/^tests\/bundle check\/[^/]+$/);
  });
});
