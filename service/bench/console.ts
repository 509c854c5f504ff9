/**
 * The web console's two budgets:
 * 1. JavaScript shipped before the first paint of the run page (the entry chunk and its static
 *    imports), in bytes as transferred to a browser with an empty cache (headers and the
 *    encoded body the service chose, brotli from the build's `.br` files): ≤ 200 KB. The
 *    dashboard's charts and the trace viewer load on demand.
 * 2. The run page, from navigation to the failed test visible, with 10000 runs stored, in
 *    Debian's Chromium on loopback: ≤ 500 ms median.
 *
 * `cd service && node bench/console.ts [--rounds 20] [--runs 10000]`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import SqliteDatabase from 'better-sqlite3';
import { buildConsole, consoleDir, startService, startSite } from '../../console/e2e/service.ts';
import { resolveChromium } from '../src/runner/browser.ts';
import { CHROMIUM_ARGS } from '../src/runner/compiler/constants.ts';
import { staticPageFloors, whenShown } from './support/page-floor.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '20' }, runs: { type: 'string', default: '10000' } },
});
const rounds = Number(values.rounds);
const storedRuns = Number(values.runs);

buildConsole();

// The first-paint JavaScript: what index.html loads before anything renders (measured below).
const dist = path.join(consoleDir, 'dist');
const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
const scripts = [
  ...html.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="\/console\/([^"]+\.js)"/g),
].map((match) => match[1] as string);

// 2. The run page with many runs stored: one real failed run, then copies of its row.
const service = await startService();
const site = await startSite();
const { bootstrap, url } = service;
const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
const form = new FormData();
form.append(
  'testData',
  JSON.stringify({
    name: 'bench failing test',
    status: 'active',
    steps: [
      { name: 'open', action: { name: 'goto', url: '/page' } },
      { name: 'check title', action: { name: 'assertText', selector: '#title', value: 'Something else' } },
    ],
  }),
);
const created = await (await fetch(`${url}/v1/tests`, { method: 'POST', headers, body: form })).json();
const started = await (
  await fetch(`${url}/v1/tests/${created.data.id}/remote-run`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ config: { use: { baseURL: site.url, actionTimeout: 1500 } } }),
  })
).json();
const runId = started.data.runId as string;
for (;;) {
  const run = await (await fetch(`${url}/v1/test-runs/${runId}`, { headers })).json();
  if (run.data.status === 'failed' || run.data.status === 'completed') break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}
{
  const sqlite = new SqliteDatabase(path.join(service.dataDir, 'stepdeck.sqlite'));
  const row = sqlite.prepare('select * from runs where id = ?').get(runId) as Record<string, unknown>;
  const columns = Object.keys(row);
  const insert = sqlite.prepare(
    `insert into runs (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  const base = Date.parse(String(row.createdAt));
  sqlite.transaction(() => {
    for (let index = 1; index < storedRuns; index += 1) {
      const createdAt = new Date(base - index * 60_000).toISOString();
      insert.run({ ...row, id: crypto.randomUUID(), createdAt });
    }
  })();
  sqlite.close();
}

const resolved = await resolveChromium();
if (!resolved.ok) throw new Error(resolved.problem);
const browser = await chromium.launch({
  executablePath: resolved.browser.executablePath,
  args: CHROMIUM_ARGS,
});

// 1. First-paint JavaScript as a first visit transfers it: a fresh context (empty cache) opens
// the sign-in page, which loads the same entry and preloads as every console page.
const firstVisit = await browser.newContext({ baseURL: url });
const firstVisitPage = await firstVisit.newPage();
await firstVisitPage.goto('/console/sign-in', { waitUntil: 'load' });
const firstPaint = await firstVisitPage.evaluate((files) => {
  const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const loaded = files.map((file) =>
    entries.find((entry) => new URL(entry.name).pathname === `/console/${file}`),
  );
  return {
    missing: files.filter((_file, index) => !loaded[index]),
    transferred: loaded.reduce((sum, entry) => sum + (entry?.transferSize ?? 0), 0),
    decoded: loaded.reduce((sum, entry) => sum + (entry?.decodedBodySize ?? 0), 0),
  };
}, scripts);
await firstVisit.close();
if (firstPaint.missing.length > 0)
  throw new Error(`not loaded by the page: ${firstPaint.missing.join(', ')}`);
const firstPaintKb = firstPaint.transferred / 1024;

const context = await browser.newContext({ baseURL: url });
const page = await context.newPage();
// The moment the failed test is in the DOM, by the page's own clock (before layout and paint).
await page.addInitScript(() => {
  const observer = new MutationObserver(() => {
    const heading = document.querySelector('.test-failed h3');
    if (!heading?.textContent?.includes('bench failing test')) return;
    (window as unknown as { failedTestShownAt?: number }).failedTestShownAt = performance.now();
    observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
});
await page.goto('/console/sign-in');
await page.getByLabel('Email').fill(bootstrap.adminEmail);
await page.getByLabel('Password').fill(bootstrap.adminPassword);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { name: 'Runs' }).waitFor();
const runPage = `/console/projects/${bootstrap.projectId}/runs/${runId}`;
const timings: number[] = [];
/** Where the time goes, per round (ms from the navigation's start, the browser's own clock). */
const phases: Record<string, number[]> = {};
for (let round = 0; round < rounds + 2; round += 1) {
  await page.goto('about:blank');
  const start = performance.now();
  await page.goto(runPage, { waitUntil: 'commit' });
  await whenShown(page, '.test-failed h3', 'bench failing test');
  // The first two rounds warm the caches (as a user's second visit would be).
  if (round < 2) continue;
  timings.push(performance.now() - start);
  const marks = await page.evaluate(() => {
    const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const find = (part: string) => entries.find((entry) => entry.name.includes(part));
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const session = find('/console/v1/session');
    const run = find('/v1/test-runs/');
    const script = find('/console/assets/index-');
    return {
      'index.html received': navigation.responseEnd,
      'script loaded': script?.responseEnd ?? Number.NaN,
      'session request sent': session?.startTime ?? Number.NaN,
      'session answered': session?.responseEnd ?? Number.NaN,
      'run request sent': run?.startTime ?? Number.NaN,
      'run answered': run?.responseEnd ?? Number.NaN,
      'failed test in the DOM':
        (window as unknown as { failedTestShownAt?: number }).failedTestShownAt ?? Number.NaN,
      'failed test seen by Playwright': performance.now(),
    };
  });
  for (const [name, value] of Object.entries(marks)) {
    phases[name] ??= [];
    phases[name].push(value);
  }
}
const floors = await staticPageFloors(page, `${url}/console/`, rounds);
await browser.close();
await site.stop();
await service.stop();

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

timings.sort((a, b) => a - b);
const median = timings[Math.floor(timings.length / 2)] as number;
const p90 = timings[Math.floor(timings.length * 0.9)] as number;
process.stdout.write(
  [
    `first-paint JS of the run page: ${firstPaintKb.toFixed(1)} KB transferred, ${(firstPaint.decoded / 1024).toFixed(1)} KB decoded (${scripts.join(', ')}); target ≤ 200 KB transferred: ${firstPaintKb <= 200 ? 'met' : 'NOT met'}`,
    `run page, navigation → failed test visible, ${storedRuns} runs stored, ${rounds} rounds: median ${median.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms; target ≤ 500 ms median: ${median <= 500 ? 'met' : 'NOT met'}`,
    `  a static one-heading page the same way, same run (the browser's and Playwright's floor): median ${floors.plain.toFixed(0)} ms plain, ${floors.withConsoleHeaders.toFixed(0)} ms with the console's response headers (COOP: a new browsing context group); the run page above the latter: ${(median - floors.withConsoleHeaders).toFixed(0)} ms`,
    `run page, navigation → failed test in the DOM (page clock, before layout and paint): median ${medianOf(phases['failed test in the DOM'] ?? []).toFixed(0)} ms`,
    `  medians in the page (ms after navigation start): ${Object.entries(phases)
      .map(([name, values]) => `${name} ${medianOf(values).toFixed(0)}`)
      .join(', ')}`,
    `  load average at the end: ${os.loadavg()[0]?.toFixed(1)}`,
    '',
  ].join('\n'),
);
