/**
 * Run isolation benchmark (issue 39): what a run pays for its own uid and Chromium's sandbox.
 *
 *   node bench/isolation.ts [--repeat 7]
 *
 * The same compiled project (one browser test: open a page on loopback, check a heading; and
 * a five-test project) is executed by the runner as a run executes it (standby runners
 * included) with `RUNNER_ISOLATION=on` and `off`, alternating round by round so that both
 * see the same machine load. Each round switches the mode, ends the waiting standbys, runs
 * once to warm the pool up for that mode, waits for the refill, then times one run; then the
 * same without waiting runners (each run starts its own). Median
 * wall time per mode; ratio = on ÷ off. Target: ≤ 1.05. The load average is printed: timings
 * on a shared 2-core machine are noisy.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compileProject } from '../src/runner/compiler/index.ts';
import {
  configureIsolation,
  configureStandbyRunners,
  executeProject,
  stopStandbyRunners,
} from '../src/runner/executor.ts';
import { defaultUidRange } from '../src/runner/isolation.ts';

const { values } = parseArgs({ options: { repeat: { type: 'string', default: '7' } } });
const repeat = Number(values.repeat);

const server = http.createServer((_request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end('<!doctype html><title>bench</title><h1 id="t">Bench page</h1>');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function project(tests: number) {
  return compileProject({
    tests: Array.from({ length: tests }, (_, index) => ({
      id: `bebebebe-0000-4000-8000-${String(index).padStart(12, '0')}`,
      name: `Bench ${index}`,
      type: 'ui' as const,
      config: {},
      vars: null,
      parameters: null,
      files: [],
      steps: [
        { id: `open-${index}`, name: 'open', action: { name: 'goto' as const, url: site } },
        {
          id: `check-${index}`,
          name: 'check',
          action: { name: 'assertText' as const, selector: '#t', value: 'Bench page' },
        },
      ],
    })),
    config: null,
    secretNames: [],
  });
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-isolation-'));
// Enterable by the runs' own uids (the runner's own run folders live straight in /tmp).
fs.chmodSync(root, 0o711);
let folder = 0;
async function timedRun(tests: number): Promise<number> {
  const dir = path.join(root, `run-${folder++}`);
  const started = performance.now();
  const result = await executeProject({
    dir,
    project: project(tests),
    env: {},
    signal: new AbortController().signal,
  });
  const ms = performance.now() - started;
  if (result.status !== 'passed')
    throw new Error(`run ${result.status}: ${result.runnerError ?? result.log}`);
  fs.rmSync(dir, { recursive: true, force: true });
  return ms;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loads: number[][] = [];

async function measure(tests: number): Promise<{ on: number; off: number; mode: string }> {
  const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
  let mode = '';
  for (let round = 0; round < repeat; round += 1) {
    for (const isolation of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const status = await configureIsolation({ isolation, uidRange: defaultUidRange });
      if (isolation === 'on') mode = status.mode;
      stopStandbyRunners();
      await timedRun(tests); // warms the standby pool up for this mode
      await sleep(6_000); // the refill starts a second after the last run; then Playwright loads
      loads.push(os.loadavg());
      times[isolation].push(await timedRun(tests));
    }
  }
  return { on: median(times.on), off: median(times.off), mode };
}

const rows: string[] = [];
for (const standby of [true, false]) {
  // Without a waiting runner (RUNNER_STANDBY_IDLE_SECONDS=0, or more runs at once than wait),
  // each run starts its own: with a uid of its own, without the host's compile caches.
  configureStandbyRunners({ idleMs: standby ? 300_000 : 0 });
  for (const tests of [1, 5]) {
    const { on, off, mode } = await measure(tests);
    rows.push(
      `| ${tests} browser test${tests > 1 ? 's' : ''}, ${standby ? 'a runner waiting' : 'no runner waiting'} | ${mode} | ${(on / 1000).toFixed(2)} s | ${(off / 1000).toFixed(2)} s | ${(on / off).toFixed(3)} |`,
    );
  }
}
stopStandbyRunners();
server.close();
fs.rmSync(root, { recursive: true, force: true });

const load = loads.map((entry) => entry[0] as number);
process.stdout.write(
  [
    `Run isolation overhead (median of ${repeat}, alternating; target ratio ≤ 1.05)`,
    '| run | mode when on | isolation on | off | on ÷ off |',
    '|---|---|---|---|---|',
    ...rows,
    `load average (1 min) during the timed runs: ${Math.min(...load).toFixed(2)}–${Math.max(...load).toFixed(2)}`,
    '',
  ].join('\n'),
);
process.exit(0);
