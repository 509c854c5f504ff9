/**
 * Runs module benchmark (embedded SQLite and runner, real Chromium, pages on loopback).
 *
 *   node bench/runs.ts [--repeat 3]
 *
 * 1. Overhead: for 1 test and for 20 tests (one directory run), the wall time of a service run
 *    (POST remote-run → status completed, polled every 20 ms) against the wall time of
 *    `playwright test` on the very same compiled project (the run's bundle.tgz, extracted,
 *    same reporters and browser). Median of `--repeat` runs each; ratio = service ÷ direct.
 * 2. Latency: trigger → `running` with an idle runner (API-only test, polled every 2 ms),
 *    median and max of 10 triggers.
 *
 * Targets (issue 4): ratio ≤ 1.10; latency ≤ 250 ms. Prints figures only; no asserts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { findFfmpeg, linkPlaywright, prepareBrowsersPath } from '../src/runner/executor.ts';

const { values } = parseArgs({ options: { repeat: { type: 'string', default: '3' } } });
const repeat = Number(values.repeat);

const server = http.createServer((_request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end('<!doctype html><title>bench</title><h1 id="t">Bench page</h1>');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-runs-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '1000000',
});
const { app, bootstrap } = await buildApp({ config, logger: false });
await app.ready();
if (!bootstrap) throw new Error('no bootstrap');
const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
const api = (options: { method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown> }) =>
  app.inject({ ...options, headers });

async function createTest(testData: Record<string, unknown>): Promise<string> {
  const form = new FormData();
  form.append('testData', JSON.stringify({ status: 'active', ...testData }));
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const response = await app.inject({
    method: 'POST',
    url: '/v1/tests',
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { ...headers, 'content-type': request.headers.get('content-type') as string },
  });
  if (response.statusCode !== 200) throw new Error(response.body);
  return response.json().data.id;
}

const uiSteps = [
  { name: 'open', action: { name: 'goto', url: site } },
  { name: 'check', action: { name: 'assertText', selector: '#t', value: 'Bench page' } },
];
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(runId: string, statuses: string[], pollMs: number) {
  for (;;) {
    const run = (await api({ method: 'GET', url: `/v1/test-runs/${runId}` })).json().data;
    if (statuses.includes(run.status)) return run;
    await sleep(pollMs);
  }
}

async function serviceRun(testId: string): Promise<{ ms: number; runId: string }> {
  const started = performance.now();
  const response = await api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
  if (response.statusCode !== 200) throw new Error(response.body);
  const runId = response.json().data.runId;
  const run = await waitFor(runId, ['completed', 'failed', 'cancelled'], 20);
  if (run.status !== 'completed') throw new Error(`bench run ${run.status}`);
  const ms = performance.now() - started;
  const span = Date.parse(run.completedAt) - Date.parse(run.startedAt);
  console.log(
    `  run ${runId}: total ${ms.toFixed(0)} ms, started→completed ${span} ms, playwright child ${run.duration} ms`,
  );
  return { ms, runId };
}

async function directRun(runId: string): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-direct-'));
  const bundle = await app.inject({ method: 'GET', url: await bundleUrl(runId) });
  fs.writeFileSync(path.join(dir, 'bundle.tgz'), bundle.rawPayload);
  await tar.x({ file: path.join(dir, 'bundle.tgz'), cwd: dir });
  await linkPlaywright(dir);
  const browsersPath = path.join(os.homedir(), '.cache', 'stepdeck', 'ms-playwright');
  await prepareBrowsersPath(browsersPath, findFfmpeg());
  const cli = path.join(
    path.dirname(import.meta.resolve('@playwright/test/package.json').replace('file://', '')),
    'cli.js',
  );
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'test', '--config', 'playwright.config.ts', '--reporter=list,json,html'],
      {
        cwd: dir,
        stdio: 'ignore',
        env: {
          ...process.env,
          PLAYWRIGHT_BROWSERS_PATH: browsersPath,
          PLAYWRIGHT_JSON_OUTPUT_FILE: path.join(dir, 'test-results.json'),
          PLAYWRIGHT_HTML_OUTPUT_DIR: path.join(dir, 'playwright-report'),
          PLAYWRIGHT_HTML_OPEN: 'never',
        },
      },
    );
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`playwright exited ${code}`))));
  });
  const ms = performance.now() - started;
  fs.rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function bundleUrl(runId: string): Promise<string> {
  const artifacts = (await api({ method: 'GET', url: `/v1/test-runs/${runId}/artifacts` })).json()
    .data as Array<{
    key: string;
    url: string;
  }>;
  const bundle = artifacts.find((artifact) => artifact.key === 'bundle.tgz');
  if (!bundle) throw new Error('no bundle');
  return bundle.url.slice(config.publicUrl.length);
}

const leaf = await createTest({ name: 'bench leaf', steps: uiSteps });
const dir = await createTest({ name: 'bench 20', directory: true });
for (let index = 0; index < 20; index += 1)
  await createTest({ name: `bench ${index}`, parentTestId: dir, steps: uiSteps });

const results: string[] = [];
for (const [label, testId] of [
  ['1 test', leaf],
  ['20 tests', dir],
] as const) {
  const service: number[] = [];
  const direct: number[] = [];
  for (let index = 0; index < repeat; index += 1) {
    if (index > 0) await sleep(10_500); // per-test cooldown
    const run = await serviceRun(testId);
    service.push(run.ms);
    direct.push(await directRun(run.runId));
  }
  const ratio = median(service) / median(direct);
  results.push(
    `${label.padEnd(9)} service ${median(service).toFixed(0)} ms, playwright test ${median(direct).toFixed(0)} ms, ratio ${ratio.toFixed(2)} (target ≤ 1.10)`,
  );
  console.log(results.at(-1));
}

const latencies: number[] = [];
for (let index = 0; index < 10; index += 1) {
  const testId = await createTest({
    name: `latency ${index}`,
    metadata: { type: 'api' },
    steps: [
      { name: 'call', action: { name: 'request', method: 'GET', url: site } },
      { name: 'ok', action: { name: 'assertStatus', value: 200 } },
    ],
  });
  const started = performance.now();
  const runId = (await api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` })).json().data.runId;
  await waitFor(runId, ['running', 'completed', 'failed'], 2);
  latencies.push(performance.now() - started);
  await waitFor(runId, ['completed', 'failed'], 50);
}
console.log(
  `trigger → running (idle runner): median ${median(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target ≤ 250 ms)`,
);

await app.close();
server.close();
fs.rmSync(dataDir, { recursive: true, force: true });
