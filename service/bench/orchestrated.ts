/**
 * Orchestrated runs benchmark (issue 21; embedded SQLite and runner, real Chromium).
 *
 *   node bench/orchestrated.ts [--slots 1,2,4] [--parts startup,uniform,skewed,merge] [--per-test]
 *
 * Tests wait on the page (a `wait` step after opening it: I/O-bound, so two cores do not
 * limit them). For each slot count (RUNNER_SLOTS = the organization's cap = slots):
 * - uniform: 16 tests of 1.5 s; speedup = wall on 1 slot ÷ wall on n slots (target ≥ 0.8 × n),
 *   once with the standby runners of the previous run ready and once with none (stopped first);
 * - skewed: 2 × 8 s, 4 × 4 s, 10 × 1 s (42 s of work), measured on its second run (history
 *   known); target wall ≤ 1.15 × max(8 s, 42 s ÷ n) + one batch start-up; and Playwright's
 *   static `--shard=i/n` over n processes on the same compiled project (the run's bundle),
 *   measured right after, with its `merge-reports`; and this machine's floor: Playwright's own
 *   `--workers=n` taking the same spec files longest first (bench/support/playwright-baselines.ts),
 *   whose tests alone, without any start-up, already need what its span says.
 * Then `playwright merge-reports` over 4 blob reports holding 100 tests (target ≤ 1 s), as the
 * service runs it: in the merge process of the host, once as it starts (Playwright loading
 * included, as a one-off command) and once loaded (as a run's merge finds it: it loads while
 * the batches run).
 *
 * Every run also prints its CPU time (this process, the Playwright and Chromium processes,
 * the merge process: bench/support/cpu-meter.ts), which load does not distort as it does
 * wall-clock: the start-up CPU of one `playwright test` (a run of 1 trivial test against one of
 * 8, on 1 slot) and what each extra batch costs ((CPU split over n slots − CPU on 1 slot) ÷
 * (batches − 1)), and where it went by process (runner, worker, Chromium's browser, GPU,
 * renderer... processes; `service` is this process). Every run starts with the install at rest
 * (see {@link atRest}). Each line ends with the load average. About 8 minutes on an idle 2-core VM.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startupCost } from '../src/modules/runs/planner.ts';
import { findFfmpeg, linkPlaywright, prepareBrowsersPath } from '../src/runner/executor.ts';
import { mergeBlobReports, stopMergeServer } from '../src/runner/merge.ts';
import { stopStandbyRunners } from '../src/runner/standby.ts';
import { CpuMeter } from './support/cpu-meter.ts';
import { ownWorkersLongestFirst, type PlaywrightCli, staticShards } from './support/playwright-baselines.ts';

const { values } = parseArgs({
  options: {
    slots: { type: 'string', default: '1,2,4' },
    // Any of startup,uniform,skewed,merge (all by default).
    parts: { type: 'string', default: 'startup,uniform,skewed,merge' },
    // Each run's tests: start (s after the trigger) + duration, by worker (where a batch lost time).
    'per-test': { type: 'boolean', default: false },
  },
});
const slotCounts = values.slots.split(',').map(Number);
const parts = new Set(values.parts.split(','));

const server = http.createServer((_request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end('<!doctype html><title>bench</title><h1 id="t">Bench page</h1>');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const cli = path.join(
  path.dirname(import.meta.resolve('@playwright/test/package.json').replace('file://', '')),
  'cli.js',
);
const browsersPath = path.join(os.homedir(), '.cache', 'stepdeck', 'ms-playwright');
await prepareBrowsersPath(browsersPath, findFfmpeg());
const pw: PlaywrightCli = { cli, browsersPath };

const meter = new CpuMeter(200);
const load = () => `load average ${os.loadavg()[0]?.toFixed(1)}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
/** CPU by process kind, largest first, in seconds: where a run's CPU went (cpu-meter.ts). */
const kinds = (byKind: Map<string, number>) =>
  [...byKind]
    .filter(([, ms]) => ms >= 50)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${(ms / 1000).toFixed(2)}`)
    .join(', ');
/**
 * Waits, outside the measured time, until the install is at rest as a run a few minutes after
 * the previous one finds it: that run's standby runners (refilled a second after it ended)
 * loaded, and no process of this one busy. Back to back, a run would start while they load
 * and, finding none ready, start its own runners: the bench measured that until 2026-11-24.
 */
async function atRest(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const deadline = Date.now() + 30_000;
  let last = meter.read().children;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = meter.read().children;
    if (now - last < 15) return;
    last = now;
  }
  // Measured anyway, but not as a run at rest finds the install: say so next to the figures.
  say(`  (not at rest after 30 s: the next run starts while this machine is busy; ${load()})`);
}
interface JsonSuite {
  specs?: {
    title: string;
    tests: { results: { startTime: string; duration: number; workerIndex: number }[] }[];
  }[];
  suites?: JsonSuite[];
}
/** A run's tests from its merged `test-results.json`: start after the trigger + duration, in start order. */
function perTest(json: Buffer | null | undefined, triggeredAt: number): string {
  const rows: { at: number; line: string }[] = [];
  const walk = (suite: JsonSuite) => {
    for (const spec of suite.specs ?? [])
      for (const result of spec.tests.flatMap((test) => test.results)) {
        const at = (Date.parse(result.startTime) - triggeredAt) / 1000;
        const line = `${at.toFixed(2)} + ${(result.duration / 1000).toFixed(2)} s, worker ${result.workerIndex}: ${spec.title}`;
        rows.push({ at, line });
      }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of (JSON.parse(json?.toString() ?? '{}') as JsonSuite).suites ?? []) walk(suite);
  return rows
    .sort((a, b) => a.at - b.at)
    .map((row) => `    ${row.line}`)
    .join('\n');
}
const uniform = Array.from({ length: 16 }, () => 1500);
const skewed = [8000, 8000, 4000, 4000, 4000, 4000, ...Array.from({ length: 10 }, () => 1000)];

async function install(slots: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-orch-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    // Any free port: another service (or bench) on this machine may hold the default 2525.
    SMTP_PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RUNNER_SLOTS: String(slots),
  });
  const { app, ctx, bootstrap } = await buildApp({ config, logger: false, background: true });
  await app.ready();
  if (!bootstrap) throw new Error('no bootstrap');
  await ctx.db.updateTable('organizations').set({ concurrencyCap: slots }).execute();
  const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };
  const api = (options: { method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown> }) =>
    app.inject({ ...options, headers });
  const createTest = async (name: string, ms: number) => {
    const form = new FormData();
    const steps = [
      { name: 'open', action: { name: 'goto', url: site } },
      { name: 'check', action: { name: 'assertText', selector: '#t', value: 'Bench page' } },
      { name: 'wait on the page', action: { name: 'wait', ms } },
    ];
    form.append('testData', JSON.stringify({ status: 'active', name, steps }));
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const response = await app.inject({
      method: 'POST',
      url: '/v1/tests',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { ...headers, 'content-type': request.headers.get('content-type') as string },
    });
    if (response.statusCode !== 200) throw new Error(response.body);
    return response.json().data.id as string;
  };
  const run = async (testIds: string[]) => {
    await atRest();
    const { value, cpuMs, selfMs, byKind } = await meter.measure(() => runOnce(testIds));
    // This process is the service (API, database, dispatcher, uploads) as well as the bench.
    byKind.set('service', selfMs);
    return { ...value, cpuMs, byKind };
  };
  const runOnce = async (testIds: string[]) => {
    // Back-to-back runs meet the API's 10 s cooldown between bulk runs (429): wait it out,
    // outside the measured wall time.
    let started = performance.now();
    let triggeredAt = Date.now();
    let response = await api({ method: 'POST', url: '/v1/tests/remote-run', payload: { testIds } });
    while (response.statusCode === 429 && response.body.includes('cooldown')) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      started = performance.now();
      triggeredAt = Date.now();
      response = await api({ method: 'POST', url: '/v1/tests/remote-run', payload: { testIds } });
    }
    if (response.statusCode !== 200) throw new Error(response.body);
    const runId = response.json().data.runId as string;
    // Awaited through the domain event, not by polling the API: polling would add CPU time in
    // proportion to the wall time, which the load stretches.
    await new Promise<void>((resolve) => {
      const onFinished = (event: { runId: string }) => {
        if (event.runId !== runId) return;
        ctx.events.off('run.finished', onFinished);
        resolve();
      };
      ctx.events.on('run.finished', onFinished);
    });
    const ms = performance.now() - started;
    const detail = (await api({ method: 'GET', url: `/v1/test-runs/${runId}` })).json().data;
    if (detail.status !== 'completed')
      throw new Error(`bench run ${detail.status}: ${detail.report?.runTypeInfo?.runnerError}`);
    const batches = await ctx.db.selectFrom('runBatches').select('kind').where('runId', '=', runId).execute();
    // Where the wall went: each batch's start and end, in seconds after the trigger.
    const at = (iso: string | null) => (iso ? ((Date.parse(iso) - triggeredAt) / 1000).toFixed(2) : '?');
    const timeline = (
      (detail.batches ?? []) as { position: number; startedAt: string | null; completedAt: string | null }[]
    )
      .map((batch) => `#${batch.position} ${at(batch.startedAt)}–${at(batch.completedAt)}`)
      .join(', ');
    // Printed as it comes, not repeated in the summary of figures.
    if (values['per-test'])
      console.log(perTest(await ctx.blobs.get(`runs/${runId}/test-results.json`), triggeredAt));
    return {
      ms,
      timeline,
      runId,
      shards: detail.shards?.length ?? 1,
      batches: batches.filter((row) => row.kind === 'tests').length,
    };
  };
  const bundle = async (runId: string, dir: string) => {
    const blob = await ctx.blobs.get(`runs/${runId}/bundle.tgz`);
    if (!blob) throw new Error('no bundle');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'bundle.tgz'), blob);
    await tar.x({ file: path.join(dir, 'bundle.tgz'), cwd: dir });
    await linkPlaywright(dir);
  };
  const close = async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { createTest, run, bundle, close };
}

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};
/** Uniform walls by standby state, then by slot count. */
const uniformWall = new Map<string, Map<number, { ms: number; cpuMs: number; batches: number }>>();
for (const slots of slotCounts) {
  const service = await install(slots);
  const uniformIds: string[] = [];
  for (const [index, ms] of uniform.entries())
    uniformIds.push(await service.createTest(`uniform ${index}`, ms));
  const skewedIds: string[] = [];
  for (const [index, ms] of skewed.entries()) skewedIds.push(await service.createTest(`skewed ${index}`, ms));

  if (slots === 1 && parts.has('startup')) {
    // The start-up CPU of one `playwright test` (process, config, browser launch, reports): a
    // run of 1 trivial test against a run of 8, both unsplit (after one run to warm the caches).
    const trivial: string[] = [];
    for (let index = 0; index < 8; index += 1) trivial.push(await service.createTest(`trivial ${index}`, 0));
    await service.run(trivial);
    const eight = await service.run(trivial);
    const one = await service.run(trivial.slice(0, 1));
    const perTest = (eight.cpuMs - one.cpuMs) / 7;
    say(
      `start-up CPU of one playwright test run: ${(one.cpuMs - perTest).toFixed(0)} ms (a run of 1 trivial test ` +
        `${one.cpuMs.toFixed(0)} ms CPU in ${seconds(one.ms)}, of 8: ${eight.cpuMs.toFixed(0)} ms in ${seconds(eight.ms)}; ` +
        `${perTest.toFixed(0)} ms CPU per trivial test); ${load()}`,
    );
    say(`  CPU s by process, run of 1: ${kinds(one.byKind)}`);
    say(`  CPU s by process, run of 8: ${kinds(eight.byKind)}`);
  }

  if (parts.has('uniform')) {
    await service.run(uniformIds); // history
    const warm = await service.run(uniformIds);
    // As after RUNNER_STANDBY_IDLE_SECONDS without a run: every runner starts with the run.
    stopStandbyRunners();
    const cold = await service.run(uniformIds);
    for (const [uni, when] of [
      [warm, 'standby runners ready'],
      [cold, 'no standby runner'],
    ] as const) {
      const walls = uniformWall.get(when) ?? new Map();
      uniformWall.set(when, walls);
      walls.set(slots, uni);
      const base = walls.get(1);
      const speedup = base ? base.ms / uni.ms : undefined;
      const extraBatchCpu =
        base && uni.batches > 1
          ? ` (${((uni.cpuMs - base.cpuMs) / (uni.batches - 1)).toFixed(0)} ms per extra batch)`
          : '';
      say(
        `uniform 16 × 1.5 s, ${slots} slot(s), ${when}: ${seconds(uni.ms)} over ${uni.shards} slot(s), ${uni.batches || 1} batch(es), ` +
          `CPU ${seconds(uni.cpuMs)}${extraBatchCpu}, start-up measured ${seconds(startupCost.estimate())}` +
          (speedup && slots > 1
            ? `; speedup ${speedup.toFixed(2)}× (target ≥ ${(0.8 * slots).toFixed(1)}×: ${verdict(speedup >= 0.8 * slots)})`
            : '') +
          `; ${load()}`,
      );
      say(`  CPU s by process: ${kinds(uni.byKind)}`);
      if (uni.timeline) say(`  batches (s after the trigger): ${uni.timeline}`);
    }
  }

  if (parts.has('skewed')) {
    await service.run(skewedIds); // history
    const skew = await service.run(skewedIds);
    // One batch start-up: what this process measured a `playwright test` to cost besides its tests.
    const bound = 1.15 * Math.max(8000, 42000 / slots) + startupCost.estimate();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-shard-'));
    await service.bundle(skew.runId, dir);
    const sharded = await staticShards(pw, dir, slots);
    fs.rmSync(dir, { recursive: true, force: true });
    const staticMs = sharded.shardsMs + sharded.mergeMs;
    // This machine's floor: Playwright's own workers taking the tests longest first.
    const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-own-'));
    await service.bundle(skew.runId, ownDir);
    const own = await ownWorkersLongestFirst(pw, ownDir, slots, (file) => {
      const index = /^skewed-(\d+)-/.exec(file)?.[1];
      if (index === undefined) throw new Error(`not a skewed test's spec: ${file}`);
      return skewed[Number(index)] ?? 0;
    });
    fs.rmSync(ownDir, { recursive: true, force: true });
    say(
      `skewed 42 s of work, ${slots} slot(s), second run: ${seconds(skew.ms)}, CPU ${seconds(skew.cpuMs)} ` +
        `(target ≤ ${seconds(bound)}: ${verdict(skew.ms <= bound)}); ` +
        `static --shard over ${slots}: ${seconds(sharded.shardsMs)} + merge ${seconds(sharded.mergeMs)} = ${seconds(staticMs)}; ` +
        `orchestrated ÷ static ${(skew.ms / staticMs).toFixed(2)} (target < 1: ${verdict(skew.ms < staticMs)}); ${load()}`,
    );
    if (skew.timeline) say(`  batches (s after the trigger): ${skew.timeline}`);
    say(
      `  floor here: Playwright's own --workers=${slots}, spec files longest first, no Stepdeck orchestration: ` +
        `wall ${seconds(own.wallMs)}, its ${own.tests} tests alone (first start → last end) ${seconds(own.testsSpanMs)} ` +
        `against the target's ${seconds(1.15 * Math.max(8000, 42000 / slots))} for them (the rest is one start-up); ` +
        `orchestrated ÷ own workers ${(skew.ms / own.wallMs).toFixed(2)}`,
    );
  }
  await service.close();
}

// merge-reports over 100 tests in 4 blob reports (trivial tests: the merge alone is timed).
if (parts.has('merge')) {
  const mergeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-merge-'));
  fs.mkdirSync(path.join(mergeDir, 'tests'));
  for (let index = 0; index < 100; index += 1)
    fs.writeFileSync(
      path.join(mergeDir, 'tests', `t${index}.spec.ts`),
      `import { test, expect } from '@playwright/test';\ntest('t${index}', () => { expect(${index}).toBe(${index}); });\n`,
    );
  fs.writeFileSync(
    path.join(mergeDir, 'playwright.config.ts'),
    `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: './tests', workers: 1 });\n`,
  );
  await linkPlaywright(mergeDir);
  await staticShards(pw, mergeDir, 4);
  const mergeOnce = async (out: string) => {
    const { value, cpuMs } = await meter.measure(() => mergeBlobReports(path.join(mergeDir, 'blobs'), out));
    const report = JSON.parse(fs.readFileSync(value.jsonReportPath, 'utf8')) as {
      stats: { expected: number };
    };
    if (report.stats.expected !== 100) throw new Error(`merged ${report.stats.expected} tests, not 100`);
    return { ms: value.durationMs, cpuMs };
  };
  stopMergeServer();
  const cold = await mergeOnce(path.join(mergeDir, 'merged-cold'));
  const warm = await mergeOnce(path.join(mergeDir, 'merged-warm'));
  say(
    `merge-reports, 100 tests in 4 blob reports: ${warm.ms.toFixed(0)} ms, CPU ${warm.cpuMs.toFixed(0)} ms, in the loaded merge process ` +
      `(target ≤ 1000 ms: ${verdict(warm.ms <= 1000)}); with Playwright loading first (a one-off merge): ` +
      `${cold.ms.toFixed(0)} ms, CPU ${cold.cpuMs.toFixed(0)} ms; ${load()}`,
  );
  fs.rmSync(mergeDir, { recursive: true, force: true });
  stopMergeServer();
}
meter.stop();

server.close();
console.log(`\nsummary\n${lines.join('\n')}`);
