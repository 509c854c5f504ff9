import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompilableTest,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
  linkPlaywright,
  writeProject,
} from '../../src/runner/index.ts';
import { exportedRunEnv, removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';

/**
 * Web Vitals steps in real Chromium against a loopback page whose largest element is an image
 * served late (so LCP comes after it) and whose banner shifts the layout: the measurements
 * reach the test result, a loose limit passes, a tight one fails saying which metric is over.
 */

const IMAGE_DELAY_MS = 700;

/** Noise, so Chromium counts the image as contentful (it skips low-entropy images for LCP). */
function noisyPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i++) png.data[i] = i % 4 === 3 ? 255 : Math.floor(Math.random() * 256);
  return PNG.sync.write(png);
}

const PAGE = `<!doctype html>
<html><head><title>Hero</title></head>
<body style="margin:0">
  <p>Welcome</p>
  <img id="hero" src="/hero.png" width="640" height="480" alt="hero">
  <button id="more" onclick="document.getElementById('out').textContent = 'more'">More</button>
  <p id="out"></p>
  <script>
    setTimeout(() => {
      const banner = document.createElement('div');
      banner.style.height = '120px';
      banner.textContent = 'Sale!';
      document.body.prepend(banner);
    }, 200);
  </script>
</body></html>`;

async function startSite() {
  const image = noisyPng(640, 480);
  const server = http.createServer((request, response) => {
    if (request.url === '/hero.png') {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'image/png' });
        response.end(image);
      }, IMAGE_DELAY_MS);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ids = {
  loose: 'f0000000-0000-4000-8000-000000000001',
  tight: 'f0000000-0000-4000-8000-000000000002',
  noInteraction: 'f0000000-0000-4000-8000-000000000003',
};

describe('Web Vitals steps (real Chromium)', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let result: ExecutionResult;
  const byId = (id: string): ExecutedTest => {
    const found = result.tests.find((test) => test.testId === id);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };

  beforeAll(async () => {
    site = await startSite();
    const config = {
      use: { baseURL: site.url, actionTimeout: 10_000, trace: 'off', screenshot: 'off', video: 'off' },
    };
    const open = () => step('Open', { name: 'goto', url: '/' });
    const tests: CompilableTest[] = [
      uiTest(
        ids.loose,
        'Hero page, loose limits',
        [
          open(),
          step('Loaded', { name: 'measureVitals', label: 'Home' }),
          step('More', { name: 'click', selector: '#more' }),
          step('After the click', { name: 'measureVitals', label: 'Home, clicked' }),
          step('Fast enough', {
            name: 'assertVitals',
            lcpMs: 20_000,
            cls: 1,
            inpMs: 5000,
            fcpMs: 20_000,
            ttfbMs: 5000,
          }),
        ],
        { config },
      ),
      uiTest(
        ids.tight,
        'Hero page, tight LCP',
        [open(), step('Fast LCP', { name: 'assertVitals', lcpMs: 100, cls: 1 })],
        {
          config,
        },
      ),
      uiTest(
        ids.noInteraction,
        'Hero page, INP without interaction',
        [open(), step('Responsive', { name: 'assertVitals', inpMs: 200 })],
        { config },
      ),
    ];
    const project = compileProject({ tests, config: null, secretNames: [] });
    result = await executeProject({
      dir: await tempDir('vitals'),
      project,
      env: {},
      signal: new AbortController().signal,
    });
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('records LCP after the late image, CLS of the banner, FCP, TTFB and INP after a click', () => {
    const test = byId(ids.loose);
    expect(test.steps.filter((s) => s.status !== 'passed').map((s) => `${s.name}: ${s.error}`)).toEqual([]);
    expect(test.status).toBe('passed');
    const [loaded, clicked, asserted] = test.vitals ?? [];
    expect(test.vitals).toHaveLength(3);
    expect(loaded?.label).toBe('Home');
    expect(loaded?.stepId).toBe(test.steps[1]?.stepId);
    expect(loaded?.lcpMs).toBeGreaterThanOrEqual(IMAGE_DELAY_MS);
    expect(loaded?.fcpMs).toBeGreaterThan(0);
    expect(loaded?.fcpMs).toBeLessThan(loaded?.lcpMs ?? 0);
    expect(loaded?.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(loaded?.loadMs).toBeGreaterThanOrEqual(IMAGE_DELAY_MS);
    expect(loaded?.cls).toBeGreaterThan(0);
    expect(loaded?.inpMs).toBeNull();
    expect(clicked?.inpMs).toBeGreaterThan(0);
    expect(asserted?.label).toBeNull();
    expect(loaded?.url).toBe(`${site.url}/`);
  });

  it('fails a tight limit naming the metric over it and the ones within', () => {
    const test = byId(ids.tight);
    expect(test.status).toBe('failed');
    const [headline, message] = test.errorMessage?.split('\n') ?? [];
    expect(headline).toBe('Step "Fast LCP" (assertVitals LCP ≤ 100 ms, CLS ≤ 1) failed');
    expect(message).toMatch(/^LCP \d+ ms is over the 100 ms limit; CLS 0\.\d+ ok$/);
    const lcp = Number(/^LCP (\d+)/.exec(message ?? '')?.[1]);
    expect(lcp).toBeGreaterThanOrEqual(IMAGE_DELAY_MS);
    expect(test.vitals?.[0]?.lcpMs).toBe(lcp);
  });

  it('an INP limit on a page nobody used says it was not measured', () => {
    const test = byId(ids.noInteraction);
    expect(test.status).toBe('failed');
    expect(test.errorMessage?.split('\n')[1]).toBe(
      'INP not measured: no interaction on the page (limit tbtMs instead)',
    );
  });
});

describe('an exported project with a device, secret headers and vitals steps', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('runs green with plain npx playwright test', async () => {
    const exported = compileProject({
      tests: [
        uiTest(
          'f1000000-0000-4000-8000-000000000001',
          'Hero page on a phone',
          [
            step('Open', { name: 'goto', url: '/' }),
            step('Phone', {
              name: 'assertScript',
              script: "navigator.userAgent.includes('Pixel 7')",
              equals: true,
            }),
            step('Loaded', { name: 'measureVitals', label: 'Home' }),
            step('Fast enough', { name: 'assertVitals', lcpMs: 20_000, cls: 1 }),
          ],
          {
            config: {
              use: { baseURL: site.url },
              device: 'Pixel 7',
              locale: 'de-DE',
              extraHTTPHeaders: { Authorization: 'Bearer {{secrets.API_TOKEN}}' },
            },
          },
        ),
      ],
      config: null,
      secretNames: ['API_TOKEN'],
    });
    const dir = await tempDir('vitals-export');
    await writeProject(dir, exported);
    await linkPlaywright(dir);
    const { stdout } = await promisify(execFile)('npx', ['playwright', 'test', '--reporter=line'], {
      cwd: dir,
      env: await exportedRunEnv({ STEPDECK_SECRET_API_TOKEN: 'exported-token' }),
      timeout: 120_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npx playwright test failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stdout).toMatch(/1 passed/);
    expect(stdout).not.toMatch(/failed/);
  }, 240_000);
});
