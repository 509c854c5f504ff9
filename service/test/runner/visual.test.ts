import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visualBaselineFile } from '../../src/runner/compiler/constants.ts';
import {
  type CompilableTest,
  compileProject,
  type ExecutedTest,
  type ExecutionResult,
  executeProject,
} from '../../src/runner/index.ts';
import { removeTempDirs, step, tempDir, uiTest } from './fixtures.ts';

/**
 * `assertScreenshot` in real Chromium against pages on loopback: a first run records
 * candidates; with those handed back as baselines, an unchanged page passes, a changed colour
 * or a moved element fails naming the ratio, a masked region's change passes, and an animated
 * page with a blinking caret passes on every one of ten repeats.
 */

function page(query: URLSearchParams): string {
  const color = query.get('color') ?? 'rgb(200, 30, 30)';
  const left = Number(query.get('left') ?? 20);
  return `<!doctype html><html><head><style>
    body { margin: 0; font: 16px sans-serif; background: #fff; }
    #box { position: absolute; top: 40px; left: ${left}px; width: 120px; height: 80px; background: ${color}; }
    #banner { position: absolute; top: 200px; left: 20px; width: 300px; height: 30px; overflow: hidden; white-space: nowrap; }
  </style></head><body>
    <div id="box"></div>
    <div id="banner">${query.has('banner') ? `Served at ${Date.now()} ${Math.random()}` : 'Welcome'}</div>
  </body></html>`;
}

const ANIMATED = `<!doctype html><html><head><style>
  body { margin: 0; font: 16px sans-serif; }
  @keyframes spin { from { transform: rotate(0deg); } to { transform: rotate(360deg); } }
  @keyframes pulse { 0% { opacity: 1; } 50% { opacity: 0.2; } 100% { opacity: 1; } }
  #spinner { position: absolute; top: 30px; left: 30px; width: 60px; height: 60px; background: #36c; animation: spin 0.7s linear infinite; }
  #pulse { position: absolute; top: 30px; left: 140px; width: 60px; height: 60px; background: #c63; animation: pulse 0.3s infinite; }
  #slide { position: absolute; top: 120px; left: 30px; width: 40px; height: 40px; background: #3a3; transition: left 3s; }
  input { position: absolute; top: 200px; left: 30px; }
</style></head><body>
  <div id="spinner"></div><div id="pulse"></div><div id="slide"></div>
  <input id="name" autofocus value="typing here" />
  <script>requestAnimationFrame(() => { document.getElementById('slide').style.left = '300px'; document.getElementById('name').focus(); });</script>
</body></html>`;

async function startPages(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.setHeader('content-type', 'text/html');
    res.end(url.pathname === '/animated' ? ANIMATED : page(url.searchParams));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const config = (extra: Record<string, unknown> = {}) => ({
  use: { actionTimeout: 10_000, trace: 'off', screenshot: 'off', video: 'off' },
  viewport: { width: 640, height: 360 },
  ...extra,
});

const id = (n: number) => `c0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const pageStep = step('Page', { name: 'assertScreenshot' });
const maskedStep = step('Masked', { name: 'assertScreenshot', mask: ['#banner'] });
const elementStep = step('Box', { name: 'assertScreenshot', selector: '#box' });
const animatedStep = step('Animated', { name: 'assertScreenshot' });

function visualTest(
  n: number,
  name: string,
  url: string,
  check = pageStep,
  extra: Partial<CompilableTest> = {},
) {
  return uiTest(id(n), name, [step('Open', { name: 'goto', url }), check], { config: config(), ...extra });
}

async function run(tests: CompilableTest[], baselines: Map<string, Buffer>): Promise<ExecutionResult> {
  const project = compileProject({ tests, config: null, secretNames: [] });
  for (const [file, content] of baselines) project.files.set(file, content);
  return executeProject({
    dir: await tempDir('visual'),
    project,
    env: {},
    signal: new AbortController().signal,
  });
}

describe('assertScreenshot against baselines (real Chromium)', () => {
  let site: { url: string; close(): Promise<void> };
  let first: ExecutionResult;
  let second: ExecutionResult;
  const byId = (result: ExecutionResult, n: number): ExecutedTest[] =>
    result.tests.filter((test) => test.testId === id(n));

  beforeAll(async () => {
    site = await startPages();
    const base = site.url;
    first = await run(
      [
        visualTest(1, 'Page', `${base}/page`),
        visualTest(2, 'Banner', `${base}/page?banner=1`, maskedStep),
        visualTest(3, 'Element', `${base}/page`, elementStep),
        visualTest(4, 'Animated', `${base}/animated`, animatedStep),
      ],
      new Map(),
    );
    // The candidates of the first run become the baselines handed to the second.
    const baselines = new Map<string, Buffer>();
    const candidate = async (n: number) => {
      const check = byId(first, n)[0]?.visual?.[0];
      if (!check?.actual) throw new Error(`no candidate for test ${n}`);
      return fs.readFile(check.actual.path);
    };
    const pageBaseline = await candidate(1);
    for (const n of [1, 5, 6]) baselines.set(visualBaselineFile(id(n), pageStep.id), pageBaseline);
    baselines.set(visualBaselineFile(id(2), maskedStep.id), await candidate(2));
    baselines.set(visualBaselineFile(id(3), elementStep.id), await candidate(3));
    baselines.set(visualBaselineFile(id(4), animatedStep.id), await candidate(4));
    second = await run(
      [
        visualTest(1, 'Page', `${base}/page`),
        visualTest(5, 'Colour changed', `${base}/page?color=rgb(30,30,200)`),
        visualTest(6, 'Box moved', `${base}/page?left=60`),
        visualTest(2, 'Banner', `${base}/page?banner=1`, maskedStep),
        visualTest(3, 'Element', `${base}/page`, elementStep),
        visualTest(4, 'Animated', `${base}/animated`, animatedStep, { config: config({ repeatEach: 10 }) }),
      ],
      baselines,
    );
  }, 300_000);
  afterAll(async () => {
    await site?.close();
    await removeTempDirs();
  });

  it('records a candidate on the first run and passes the step as new', () => {
    expect(first.status).toBe('passed');
    for (const n of [1, 2, 3, 4]) {
      const [test] = byId(first, n);
      expect(test?.status).toBe('passed');
      expect(test?.visual?.map((check) => check.status)).toEqual(['new']);
      expect(test?.visual?.[0]?.actual?.file).toMatch(/^visual-step-\d+-actual\.png$/);
    }
    const element = byId(first, 3)[0]?.visual?.[0];
    expect([element?.width, element?.height]).toEqual([120, 80]);
    expect([byId(first, 1)[0]?.visual?.[0]?.width, byId(first, 1)[0]?.visual?.[0]?.height]).toEqual([
      640, 360,
    ]);
  });

  it('passes an unchanged page and an unchanged element, storing no picture', () => {
    for (const n of [1, 3]) {
      const [test] = byId(second, n);
      expect(test?.errorDetail ?? null).toBeNull();
      expect(test?.status).toBe('passed');
      expect(test?.visual?.[0]).toMatchObject({ status: 'passed', diffPixels: 0, actual: null, diff: null });
    }
  });

  it('fails a changed colour with the ratio in the failure text and a diff', async () => {
    const [test] = byId(second, 5);
    expect(test?.status).toBe('failed');
    const check = test?.visual?.[0];
    expect(check?.status).toBe('changed');
    // The 120×80 box changed colour: 9600 of 640×360 pixels.
    expect(check?.diffPixels).toBe(9600);
    expect(test?.errorMessage).toBe(
      'Step "Page" (assertScreenshot page) failed\nthe screenshot differs from the baseline: 9600 of 230400 pixels (ratio 0.0417) differ, 0 allowed; diff: visual-' +
        `${pageStep.id}-diff.png`,
    );
    const diff = PNG.sync.read(await fs.readFile(check?.diff?.path ?? ''));
    expect([diff.width, diff.height]).toEqual([640, 360]);
    expect(check?.actual).not.toBeNull();
  });

  it('fails a moved element, naming its ratio', () => {
    const [test] = byId(second, 6);
    expect(test?.status).toBe('failed');
    expect(test?.visual?.[0]?.status).toBe('changed');
    expect(test?.visual?.[0]?.ratio).toBeGreaterThan(0);
    expect(test?.errorMessage).toMatch(/\(ratio 0\.0\d+\) differ, 0 allowed/);
  });

  it('passes when only a masked region changed', () => {
    const [test] = byId(second, 2);
    expect(test?.status).toBe('passed');
    expect(test?.visual?.[0]?.status).toBe('passed');
  });

  it('passes an animated page with a focused input on each of ten repeats', () => {
    const repeats = byId(second, 4);
    expect(repeats).toHaveLength(10);
    expect(repeats.map((test) => test.status)).toEqual(Array(10).fill('passed'));
    expect(repeats.map((test) => test.visual?.[0]?.status)).toEqual(Array(10).fill('passed'));
  });
});
