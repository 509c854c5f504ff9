import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  type CompiledProject,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
} from '../../src/runner/index.ts';
import { removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';

/**
 * The run config's browser environment in real Chromium against a loopback site: a device
 * preset (viewport, user agent, touch), locale and time zone, geolocation with its permission,
 * colour scheme, offline mode, extra headers and HTTP credentials from secrets that never
 * reach the generated files or the results.
 */

const PASSWORD = 'basic-pass-7f3a9c';
const TOKEN = 'header-token-41be0d';

const ENV_PAGE = `<!doctype html>
<html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Env</title></head>
<body><p id="out">Env</p><script>
  window.geo = 'pending';
  navigator.geolocation.getCurrentPosition(
    (position) => { window.geo = position.coords.latitude + ',' + position.coords.longitude; },
    (error) => { window.geo = 'error ' + error.code; },
  );
</script></body></html>`;

const escapeHtml = (value: string) => value.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);

async function startSite() {
  const server = http.createServer((request, response) => {
    const html = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      response.end(body);
    };
    if (request.url === '/env') return html(200, ENV_PAGE);
    if (request.url === '/headers')
      return html(
        200,
        `<p id="team">${escapeHtml(String(request.headers['x-team'] ?? ''))}</p><p id="token">${escapeHtml(String(request.headers['x-token'] ?? ''))}</p>`,
      );
    if (request.url === '/private') {
      const expected = `Basic ${Buffer.from(`ada:${PASSWORD}`).toString('base64')}`;
      if (request.headers.authorization !== expected)
        return html(401, '<p id="welcome">Who are you?</p>', { 'www-authenticate': 'Basic realm="private"' });
      return html(200, '<p id="welcome">Welcome ada</p>');
    }
    html(404, 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const script = (name: string, source: string, equals: unknown) =>
  step(name, { name: 'assertScript', script: source, equals, timeout: 3000 });

const ids = {
  pixel: 'e0000000-0000-4000-8000-000000000001',
  pixelSized: 'e0000000-0000-4000-8000-000000000002',
  localeZone: 'e0000000-0000-4000-8000-000000000003',
  geo: 'e0000000-0000-4000-8000-000000000004',
  dark: 'e0000000-0000-4000-8000-000000000005',
  offline: 'e0000000-0000-4000-8000-000000000006',
  offlineGoto: 'e0000000-0000-4000-8000-000000000007',
  headers: 'e0000000-0000-4000-8000-000000000008',
  credentials: 'e0000000-0000-4000-8000-000000000009',
  noCredentials: 'e0000000-0000-4000-8000-000000000010',
};

describe('browser environment of the run config (real Chromium)', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let project: CompiledProject;
  let result: ExecutionResult;
  const byId = (id: string): ExecutedTest => {
    const found = result.tests.find((test) => test.testId === id);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };
  const passed = (id: string) => {
    const test = byId(id);
    expect(test.steps.filter((s) => s.status !== 'passed').map((s) => `${s.name}: ${s.error}`)).toEqual([]);
    expect(test.status).toBe('passed');
  };

  beforeAll(async () => {
    site = await startSite();
    const use = { baseURL: site.url, actionTimeout: 10_000, trace: 'off', screenshot: 'off', video: 'off' };
    const open = step('Open', { name: 'goto', url: '/env' });
    const test = (
      id: string,
      name: string,
      config: Record<string, unknown>,
      steps: CompilableTest['steps'],
    ) => uiTest(id, name, steps, { config: { use, ...config } });
    const tests: CompilableTest[] = [
      test(ids.pixel, 'Pixel 7', { device: 'Pixel 7' }, [
        open,
        script('Viewport', "innerWidth + 'x' + innerHeight", '412x839'),
        script(
          'User agent',
          "navigator.userAgent.includes('Pixel 7') && navigator.userAgent.includes('Mobile')",
          true,
        ),
        script('Touch', 'navigator.maxTouchPoints > 0', true),
        script('Coarse pointer', "matchMedia('(pointer: coarse)').matches", true),
      ]),
      test(
        ids.pixelSized,
        'Pixel 7, own viewport',
        { device: 'Pixel 7', viewport: { width: 600, height: 700 } },
        [
          open,
          script('Viewport', "innerWidth + 'x' + innerHeight", '600x700'),
          script('Still the phone', "navigator.userAgent.includes('Pixel 7')", true),
        ],
      ),
      test(ids.localeZone, 'German in Tokyo', { locale: 'de-DE', timezoneId: 'Asia/Tokyo' }, [
        open,
        script('Zone', 'Intl.DateTimeFormat().resolvedOptions().timeZone', 'Asia/Tokyo'),
        script('Locale', 'Intl.DateTimeFormat().resolvedOptions().locale', 'de-DE'),
        script('Language', 'navigator.language', 'de-DE'),
        script('Formatted', 'new Date(Date.UTC(2026, 0, 2, 20)).toLocaleString()', '3.1.2026, 05:00:00'),
      ]),
      test(
        ids.geo,
        'Berlin',
        { geolocation: { latitude: 52.52, longitude: 13.405 }, permissions: ['geolocation'] },
        [open, script('Position', 'window.geo', '52.52,13.405')],
      ),
      test(ids.dark, 'Dark', { colorScheme: 'dark' }, [
        open,
        script('Dark', "matchMedia('(prefers-color-scheme: dark)').matches", true),
      ]),
      test(ids.offline, 'Offline', { offline: true }, [
        step('Blank', { name: 'goto', url: 'about:blank' }),
        script('Offline', 'navigator.onLine', false),
      ]),
      test(ids.offlineGoto, 'Offline load', { offline: true }, [open]),
      test(
        ids.headers,
        'Headers',
        { extraHTTPHeaders: { 'X-Team': 'qa', 'X-Token': 'Bearer {{secrets.API_TOKEN}}' } },
        [
          step('Open', { name: 'goto', url: '/headers' }),
          step('Team', { name: 'assertText', selector: '#team', value: 'qa', exact: true }),
          step('Token', {
            name: 'assertText',
            selector: '#token',
            value: 'Bearer {{secrets.API_TOKEN}}',
            exact: true,
          }),
        ],
      ),
      uiTest(
        ids.credentials,
        'Private page',
        [
          step('Open', { name: 'goto', url: '/private' }),
          step('Welcome', { name: 'assertText', selector: '#welcome', value: 'Welcome ada' }),
        ],
        {
          config: {
            use: { ...use, trace: 'on' },
            httpCredentials: { username: 'ada', password: '{{secrets.BASIC_PASSWORD}}' },
          },
        },
      ),
      test(ids.noCredentials, 'Private page, no credentials', {}, [
        step('Open', { name: 'goto', url: '/private' }),
        step('Welcome', { name: 'assertText', selector: '#welcome', value: 'Welcome ada', timeout: 500 }),
      ]),
    ];
    project = compileProject({ tests, config: null, secretNames: ['BASIC_PASSWORD', 'API_TOKEN'] });
    result = await executeProject({
      dir: await tempDir('browser-environment'),
      project,
      env: { STEPDECK_SECRET_BASIC_PASSWORD: PASSWORD, STEPDECK_SECRET_API_TOKEN: TOKEN },
      signal: new AbortController().signal,
    });
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('writes the device preset first in the spec, then the explicit fields', () => {
    const config = String(project.files.get('playwright.config.ts'));
    const spec = (id: string) => String(project.files.get(project.specFiles.get(id) ?? ''));
    // A context of its own is not a project (and a browser launch) of its own.
    expect(config).toContain(`import { defineConfig } from '@playwright/test';`);
    expect(config).not.toContain('devices');
    expect(spec(ids.pixel)).toContain(`import { devices, expect, test } from '@playwright/test';`);
    expect(spec(ids.pixel)).toMatch(
      /const context = \{\n\s+\.\.\.\(.*\)\(devices\["Pixel 7"\]\),\n\s+baseURL: /,
    );
    expect(spec(ids.localeZone)).toContain('timezoneId: "Asia/Tokyo"');
    expect(config).toContain(
      'httpCredentials: { username: fill("ada"), password: fill("{{secrets.BASIC_PASSWORD}}") }',
    );
  });

  it('a device gives the page its viewport, user agent and touch; a set viewport wins', () => {
    passed(ids.pixel);
    passed(ids.pixelSized);
  });

  it('locale, time zone, geolocation, colour scheme and offline reach the page', () => {
    passed(ids.localeZone);
    passed(ids.geo);
    passed(ids.dark);
    passed(ids.offline);
    const load = byId(ids.offlineGoto);
    expect(load.status).toBe('failed');
    expect(load.errorMessage).toContain('ERR_INTERNET_DISCONNECTED');
  });

  it('extra headers and HTTP credentials come from secrets, never written down', async () => {
    passed(ids.headers);
    passed(ids.credentials);
    const refused = byId(ids.noCredentials);
    expect(refused.status).toBe('failed');
    expect(refused.received).toBe('"Who are you?"');
    for (const content of project.files.values()) {
      expect(String(content)).not.toContain(PASSWORD);
      expect(String(content)).not.toContain(TOKEN);
    }
    const credentials = byId(ids.credentials);
    expect(credentials.artifacts.some((artifact) => artifact.kind === 'trace')).toBe(true);
    for (const artifact of credentials.artifacts) {
      const bytes = await readFile(artifact.path);
      expect(bytes.includes(PASSWORD)).toBe(false);
    }
    expect(JSON.stringify(result.tests)).not.toContain(PASSWORD);
    expect(JSON.stringify(result.tests)).not.toContain(TOKEN);
  });
});
