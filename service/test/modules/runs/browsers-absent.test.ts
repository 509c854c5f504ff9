import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, forgetBrowserChecks } from '../../../src/runner/browser-builds.ts';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTest } from './helpers.ts';

/**
 * Firefox and WebKit exist for a run only when Playwright's builds of them are installed where
 * the service runs. The browsers folders point at an empty folder here, so both are absent
 * whatever this machine holds; then a build's file appears and Firefox is offered.
 */
describe('Firefox and WebKit when their builds are absent', () => {
  let t: TestApp;
  let testId: string;
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-browsers-'));
  const saved = {
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
    PLAYWRIGHT_BROWSERS_PATH: process.env.PLAYWRIGHT_BROWSERS_PATH,
  };

  beforeAll(async () => {
    process.env.XDG_CACHE_HOME = cacheDir;
    delete process.env.PLAYWRIGHT_BROWSERS_PATH;
    forgetBrowserChecks();
    t = await createTestApp({ env: { STEPDECK_CACHE_DIR: path.join(cacheDir, 'stepdeck') } });
    testId = await createTest(t, apiTest('Health', 'http://127.0.0.1:9/health'));
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    forgetBrowserChecks();
    await t?.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });

  it('refuses a trigger asking for them with a 400 naming the install step', async () => {
    for (const browser of ['firefox', 'webkit'] as const) {
      const single = await t.api({
        method: 'POST',
        url: `/v1/tests/${testId}/remote-run`,
        payload: { config: { use: { browserName: browser } } },
      });
      expect(single.statusCode, single.body).toBe(400);
      expect(single.json()).toEqual({
        code: 'BROWSER_NOT_INSTALLED',
        message: `${browser} is not installed on this service: run \`npx playwright install ${browser}\` where the service runs (see docs/runner.md), or choose chromium`,
      });
      const bulk = await t.api({
        method: 'POST',
        url: '/v1/tests/remote-run',
        payload: { testIds: [testId], config: { use: { browserName: browser } } },
      });
      expect(bulk.statusCode).toBe(400);
      expect(bulk.json().code).toBe('BROWSER_NOT_INSTALLED');
    }
    const runs = await t.api({ method: 'GET', url: '/v1/test-runs' });
    expect(runs.json().data).toEqual([]);
  });

  it('tells the console which browsers it may offer, and why not', async () => {
    const organization = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: '/console/v1/organization',
    });
    expect(organization.json().data.browsers).toEqual([
      { name: 'chromium', available: true, reason: null },
      {
        name: 'firefox',
        available: false,
        reason: 'Not installed on this service: run `npx playwright install firefox` where it runs',
      },
      {
        name: 'webkit',
        available: false,
        reason: 'Not installed on this service: run `npx playwright install webkit` where it runs',
      },
    ]);
  });

  it("offers Firefox once Playwright's pinned build is where the runner looks", async () => {
    const { firefox } = await import('playwright-core');
    const build = firefox.executablePath().split(path.sep);
    const at = build.findIndex((part) => /^firefox-\d+$/.test(part));
    const file = path.join(cacheDir, 'ms-playwright', ...build.slice(at));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    forgetBrowserChecks();
    expect(browserAvailability().find((browser) => browser.name === 'firefox')).toEqual({
      name: 'firefox',
      available: true,
      reason: null,
    });
  });
});
