/**
 * Black-box orchestration benchmark: the service as a user installs and drives it, against
 * Playwright's own workers on the same tests and browser, in one run.
 *
 *   node bench/black-box.ts [--parts uniform,skewed] [--slots 1,4] [--quick]
 *
 * For each slot count a fresh install starts (`node service/src/server.ts`, temp DATA_DIR,
 * `RUNNER_SLOTS` = the slot count and nothing else set: the organization keeps the cap a fresh
 * install gives it, printed); the admin signs in and makes an API key, the tests are created
 * through `POST /v1/tests` with no config (open a page on loopback, check its heading, wait the
 * test's duration), and each suite runs twice through `POST /v1/tests/remote-run` (first run
 * without history, second with), polled by `GET /v1/test-runs/:runId` every 250 ms: the wall is
 * the accepted trigger → the poll that saw the run end (bench/support/black-box-service.ts).
 * Suites: uniform 16 × 1.5 s; skewed 2 × 8 s, 4 × 4 s, 10 × 1 s (`--quick`: 4 × 1.5 s and
 * 4 / 2 / 1 / 1 s, to check the bench works).
 *
 * The floor, after each install has stopped: the same tests as the API exports them as a
 * Playwright project (`POST /v1/tests/export`, `format: "pw"`), run by `playwright test
 * --workers=n` with the spec files longest first, in the Chromium the service resolves
 * (`CHROMIUM_PATH` from resolveChromium), for n = 1 and each slot count.
 *
 * The 1-slot figures come from an install of their own (`RUNNER_SLOTS=1`): a client cannot
 * make a 4-slot install run on one slot without changing its settings. Targets (quiet 2-core
 * machine): uniform speedup 1 → n slots ≥ 0.9 × Playwright's `--workers=1` → `--workers=n`;
 * skewed on n slots ≤ 1.10 × Playwright's `--workers=n`; a second run ≤ 1.05 × the first;
 * per-test time (the report's durations summed) on 1 slot ≤ 1.05 × `--workers=1`'s. Every
 * line ends with the load average at its start and end. About 6–8 minutes on an idle 2-core VM.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { unzip } from '../src/modules/tests/archive.ts';
import {
  defaultBrowsersPath,
  findFfmpeg,
  prepareBrowsersPath,
  resolveChromium,
} from '../src/runner/browser.ts';
import { linkPlaywright } from '../src/runner/run-setup.ts';
import { pollMs, type RunOutcome, startInstall } from './support/black-box-service.ts';
import { CpuMeter } from './support/cpu-meter.ts';
import { ownWorkersLongestFirst } from './support/playwright-baselines.ts';

const { values } = parseArgs({
  options: {
    parts: { type: 'string', default: 'uniform,skewed' },
    slots: { type: 'string', default: '1,4' },
    quick: { type: 'boolean', default: false },
  },
});
type Part = 'uniform' | 'skewed';
const parts = values.parts.split(',').filter((part): part is Part => part === 'uniform' || part === 'skewed');
const slotCounts = [...new Set(values.slots.split(',').map(Number))].sort((a, b) => a - b);
if (parts.length === 0 || slotCounts.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error('usage: node bench/black-box.ts [--parts uniform,skewed] [--slots 1,4] [--quick]');
const suites: Record<Part, { label: string; durations: number[] }> = values.quick
  ? {
      uniform: { label: 'uniform 4 × 1.5 s', durations: [1500, 1500, 1500, 1500] },
      skewed: { label: 'skewed 4 / 2 / 1 / 1 s', durations: [4000, 2000, 1000, 1000] },
    }
  : {
      uniform: { label: 'uniform 16 × 1.5 s', durations: Array.from({ length: 16 }, () => 1500) },
      skewed: {
        label: 'skewed 2 × 8 s, 4 × 4 s, 10 × 1 s',
        durations: [8000, 8000, 4000, 4000, 4000, 4000, ...Array.from({ length: 10 }, () => 1000)],
      },
    };

const server = http.createServer((_request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end('<!doctype html><title>bench</title><h1 id="t">Bench page</h1>');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const steps = (ms: number) => [
  { name: 'open', action: { name: 'goto', url: site } },
  { name: 'check', action: { name: 'assertText', selector: '#t', value: 'Bench page' } },
  { name: 'wait on the page', action: { name: 'wait', ms } },
];
// The spec files are named after the tests (`<part>-<i>-<ms>-ms-<id>.spec.ts`): longest first by it.
const expectedMs = (file: string) => {
  const ms = /-(\d+)-ms-/.exec(file)?.[1];
  if (ms === undefined) throw new Error(`not a bench test's spec: ${file}`);
  return Number(ms);
};

// The floor's Playwright and browser: the service's own package, the browser its runs resolve.
const browsersPath = defaultBrowsersPath();
await prepareBrowsersPath(browsersPath, findFfmpeg());
const chromium = await resolveChromium({ browsersPath });
if (!chromium.ok) throw new Error(chromium.problem);
const floorEnv = { CHROMIUM_PATH: chromium.browser.executablePath };
const cli = path.join(
  path.dirname(import.meta.resolve('@playwright/test/package.json').replace('file://', '')),
  'cli.js',
);
const pw = { cli, browsersPath };

const meter = new CpuMeter(200);
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const loadNow = () => os.loadavg()[0] ?? 0;
const loads = (span: { loadStart: number; loadEnd: number }) =>
  `load ${span.loadStart.toFixed(2)} → ${span.loadEnd.toFixed(2)}`;

/**
 * Waits, outside the measured time, until the processes this bench started (the service, its
 * runners and browsers) use under a tenth of a core: the standby runners a run leaves have
 * loaded, as a run some minutes after the previous one finds them. Not zero: the service
 * itself is one of them here, and its timers and sweeps cost a little even when idle.
 */
async function atRest(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const deadline = Date.now() + 30_000;
  let last = meter.read().children;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = meter.read().children;
    if (now - last < 30) return;
    last = now;
  }
  say(`  (not at rest after 30 s: the next figure is taken while this machine is busy; load ${loadNow()})`);
}

interface Span {
  loadStart: number;
  loadEnd: number;
  cpuMs: number;
}
async function measured<T>(work: () => Promise<T>): Promise<T & Span> {
  await atRest();
  const loadStart = loadNow();
  const { value, cpuMs } = await meter.measure(work);
  return { ...value, cpuMs, loadStart, loadEnd: loadNow() };
}

type Measured = RunOutcome & Span;
type Floor = Awaited<ReturnType<typeof ownWorkersLongestFirst>> & Span;
const service = new Map<string, { first: Measured; second: Measured }>(); // `${part}:${slots}`
const floors = new Map<string, Floor>(); // `${part}:${workers}`

/** Playwright's own `--workers=n` on the exported project, unpacked into a folder of its own. */
async function floor(zip: Buffer, workers: number): Promise<Floor> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-black-box-pw-'));
  try {
    for (const [name, content] of await unzip(zip)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), content);
    }
    await linkPlaywright(dir);
    return await measured(() => ownWorkersLongestFirst(pw, dir, workers, expectedMs, floorEnv));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

say(
  `black-box: ${os.cpus().length} CPUs; browser ${chromium.browser.executablePath} (${chromium.browser.source}) for the ` +
    `service and the floor; service ${process.getuid?.() === 0 ? 'as root: runs under uids of their own with Chromium’s sandbox (RUNNER_ISOLATION default)' : 'as this user'}; ` +
    `polled every ${pollMs} ms${values.quick ? '; QUICK (a smoke test, not figures)' : ''}`,
);
for (const slots of slotCounts) {
  const install = await startInstall(slots);
  const projects = new Map<Part, Buffer>();
  try {
    say(`install RUNNER_SLOTS=${slots}: organization cap ${install.orgCap} (as a fresh install sets it)`);
    for (const part of parts) {
      const { label, durations } = suites[part];
      const ids: string[] = [];
      for (const [index, ms] of durations.entries())
        ids.push(await install.createTest(`${part} ${index} ${ms} ms`, steps(ms)));
      projects.set(part, await install.exportProject(ids));
      const run = async (when: string) => {
        const outcome = await measured(() => install.run(ids));
        say(
          `${label}, RUNNER_SLOTS=${slots}, ${when}: ${seconds(outcome.wallMs)} (the run's own ${seconds(outcome.serverMs)}), ` +
            `${outcome.batches} batch(es), tests ${seconds(outcome.testsMs)} together, CPU ${seconds(outcome.cpuMs)}; ${loads(outcome)}` +
            (outcome.plan ? `\n  plan: ${outcome.plan}` : ''),
        );
        return outcome;
      };
      const first = await run('first run');
      service.set(`${part}:${slots}`, { first, second: await run('second run') });
    }
    if (install.rateLimited() > 0)
      say(`  (${install.rateLimited()} requests waited out the rate limit: the walls include it)`);
  } finally {
    await install.stop();
  }
  // Measured right after the install whose slot count it matches, with the service stopped.
  for (const workers of new Set([1, slots]))
    for (const part of parts) {
      const zip = projects.get(part);
      if (!zip || floors.has(`${part}:${workers}`)) continue;
      const own = await floor(zip, workers);
      floors.set(`${part}:${workers}`, own);
      say(
        `${suites[part].label}, Playwright's own --workers=${workers}, longest first: ${seconds(own.wallMs)}, ` +
          `its ${own.tests} tests alone ${seconds(own.testsSpanMs)} (first start → last end), ` +
          `tests ${seconds(own.testsMs)} together, CPU ${seconds(own.cpuMs)}; ${loads(own)}`,
      );
    }
}
meter.stop();
server.close();

// Ratios, all from this run.
const targets: string[] = [];
const most = slotCounts.at(-1) ?? 1;
for (const part of parts) {
  const { label } = suites[part];
  const ownOne = floors.get(`${part}:1`);
  for (const slots of slotCounts) {
    const runs = service.get(`${part}:${slots}`);
    const own = floors.get(`${part}:${slots}`);
    if (!runs || !own) continue;
    if (part === 'uniform' && slots > 1) {
      const one = service.get(`${part}:1`);
      if (one && ownOne) {
        const ownSpeedup = ownOne.wallMs / own.wallMs;
        const speedup = (run: 'first' | 'second') => one[run].wallMs / runs[run].wallMs;
        const ratio = speedup('second') / ownSpeedup;
        targets.push(
          `${label}: speedup 1 → ${slots} slots ${speedup('second').toFixed(2)}× (first runs ${speedup('first').toFixed(2)}×) ` +
            `against Playwright's own --workers=1 → ${slots} ${ownSpeedup.toFixed(2)}×: ${ratio.toFixed(2)} ` +
            `(target ≥ 0.9: ${verdict(ratio >= 0.9)})`,
        );
      }
    }
    if (part === 'skewed') {
      const ratio = runs.second.wallMs / own.wallMs;
      targets.push(
        `${label} on ${slots} slot(s) ÷ Playwright's own --workers=${slots} longest first: ${ratio.toFixed(2)} ` +
          `(${seconds(runs.second.wallMs)} vs ${seconds(own.wallMs)}; first run ${(runs.first.wallMs / own.wallMs).toFixed(2)}) ` +
          `(target ≤ 1.10${slots === most ? '' : `, set for ${most} slots`}: ${verdict(ratio <= 1.1)})`,
      );
    }
    const perTest = (run: Measured, floorRun: Floor) => run.testsMs / floorRun.testsMs;
    if (runs.second.tests !== own.tests)
      throw new Error(`${label}: the report has ${runs.second.tests} tests`);
    targets.push(
      slots === 1
        ? `${label}, per-test time on 1 slot ÷ raw Playwright --workers=1 (the tests' own durations summed): ` +
            `${perTest(runs.second, own).toFixed(2)} (first run ${perTest(runs.first, own).toFixed(2)}) ` +
            `(target ≤ 1.05: ${verdict(perTest(runs.second, own) <= 1.05)})`
        : `${label}, per-test time on ${slots} slots ÷ --workers=${slots}: ${perTest(runs.second, own).toFixed(2)}` +
            (ownOne ? `, ÷ --workers=1: ${perTest(runs.second, ownOne).toFixed(2)}` : '') +
            ' (tests sharing the CPU; the target is set on 1 slot)',
    );
    const slower = runs.second.wallMs / runs.first.wallMs;
    targets.push(
      `${label}, ${slots} slot(s): second run ÷ first ${slower.toFixed(2)} (target ≤ 1.05: ${verdict(slower <= 1.05)})`,
    );
  }
}
console.log(`\nsummary\n${lines.join('\n')}\n\ntargets (second runs unless said)\n${targets.join('\n')}`);
