/**
 * Response serialization benchmark (embedded SQLite, loopback HTTP, autocannon).
 *
 *   node bench/serialization.ts [--duration 5] [--connections 10] [--rounds 2]
 *
 * In one run, on one database: requests/s, p99 latency and server CPU per request of
 *   - `GET /v1/tests` (a page of 50 tests, each with 3 steps), and
 *   - `GET /v1/test-runs/:runId` (a completed run whose report holds 20 test results of 5 steps),
 * served by two builds of the same app: `plain` (every body through JSON.stringify, response
 * schemas ignored: the state before routes declared them) and `schema` (bodies serialized
 * through each route's response schema, compiled with fast-json-stringify). Prints schema ÷ plain
 * (goal: ≥ 1, i.e. not slower).
 *
 * The servers run in a child process so autocannon does not share their event loop; rounds
 * alternate plain/schema to spread machine noise over both.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
  },
});

interface Targets {
  plain: string;
  schema: string;
  headers: Record<string, string>;
  runId: string;
}

if (values.serve) await serve();
else await measure();

async function serve(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-serialization-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    SMTP_PORT: '0',
    RATE_LIMIT_PER_MINUTE: String(1_000_000_000),
  });
  const plain = await buildApp({ config, logger: false, background: false, responseSerialization: 'plain' });
  if (!plain.bootstrap) throw new Error('expected a fresh install');
  const headers = { 'x-api-key': plain.bootstrap.apiKey, 'x-project-id': plain.bootstrap.projectId };
  await plain.app.ready();

  let firstTestId = '';
  for (let index = 0; index < 60; index++) {
    const form = new FormData();
    form.append(
      'testData',
      JSON.stringify({
        name: `bench test ${String(index).padStart(2, '0')}`,
        status: 'active',
        metadata: { type: 'api', description: 'A test of the serialization benchmark' },
        steps: [
          { name: 'open', action: { name: 'request', method: 'GET', url: 'http://127.0.0.1:9/x' } },
          { name: 'status', action: { name: 'assertStatus', value: 200 } },
          { name: 'again', action: { name: 'request', method: 'GET', url: 'http://127.0.0.1:9/y' } },
        ],
      }),
    );
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const created = await plain.app.inject({
      method: 'POST',
      url: '/v1/tests',
      headers: { ...headers, 'content-type': request.headers.get('content-type') ?? '' },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    if (created.statusCode !== 200) throw new Error(`seed failed: ${created.body}`);
    firstTestId ||= created.json().data.id;
  }
  const started = await plain.app.inject({
    method: 'POST',
    url: `/v1/tests/${firstTestId}/remote-run`,
    headers,
  });
  if (started.statusCode !== 200) throw new Error(`run failed: ${started.body}`);
  const runId: string = started.json().data.runId;
  await completeWithReport(plain.ctx.db, runId);

  const schema = await buildApp({
    config,
    logger: false,
    background: false,
    responseSerialization: 'schema',
  });
  await schema.app.ready();
  const targets: Targets = {
    plain: await plain.app.listen({ port: 0, host: '127.0.0.1' }),
    schema: await schema.app.listen({ port: 0, host: '127.0.0.1' }),
    headers,
    runId,
  };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  process.on('SIGTERM', async () => {
    await plain.app.close();
    await schema.app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** Marks the run completed with a report the size of a 20-test directory run. */
async function completeWithReport(db: Awaited<ReturnType<typeof buildApp>>['ctx']['db'], runId: string) {
  const testResults = Array.from({ length: 20 }, (_, index) => ({
    testId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    name: `bench test ${index}`,
    status: index % 5 === 0 ? 'failed' : 'passed',
    duration: 1200 + index,
    errorMessage: index % 5 === 0 ? 'Expected status 200, received 500' : null,
    errorLocation: index % 5 === 0 ? 'bench › status' : null,
    attempts: 1,
    flaky: false,
    steps: Array.from({ length: 5 }, (_, step) => ({
      stepId: null,
      name: `step ${step}`,
      action: 'request GET',
      path: [`bench test ${index}`, `step ${step}`],
      depth: 1,
      status: 'passed',
      duration: 200,
      error: null,
    })),
  }));
  const stats = { passed: 16, failed: 4, skipped: 0, total: 20 };
  const now = new Date().toISOString();
  const report = {
    status: 'failed',
    testName: 'bench test 00',
    runName: 'bench',
    runId,
    duration: 25_000,
    completedAt: now,
    branchId: '',
    branchName: 'main',
    scheduleName: null,
    runTypeInfo: { type: 'test', name: 'bench', testResults, stats, runnerError: null },
  };
  await db
    .updateTable('runs')
    .set({
      status: 'failed',
      stats: JSON.stringify(stats),
      report: JSON.stringify(report),
      duration: 25_000,
      startedAt: now,
      completedAt: now,
    })
    .where('id', '=', runId)
    .execute();
}

interface Figures {
  rps: number;
  p99: number;
  errors: number;
  cpuMicros: number;
}

/** CPU time used so far by a process, in microseconds (Linux /proc; clock ticks of 10 ms). */
function cpuTimeOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
}

async function fire(url: string, headers: Record<string, string>, pid: number): Promise<Figures> {
  const cpuBefore = cpuTimeOf(pid);
  const result = await autocannon({
    url,
    headers,
    duration: Number(values.duration),
    connections: Number(values.connections),
    pipelining: 1,
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuMicros: (cpuTimeOf(pid) - cpuBefore) / Math.max(1, result.requests.total),
  };
}

async function startChild(): Promise<{ child: ChildProcess; targets: Targets }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const targets = await new Promise<Targets>((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n')[0];
      if (buffer.includes('\n') && line) resolve(JSON.parse(line) as Targets);
    });
    child.on('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
  });
  return { child, targets };
}

async function measure(): Promise<void> {
  const { child, targets } = await startChild();
  const pid = child.pid ?? 0;
  const endpoints = {
    'GET /v1/tests (page of 50)': '/v1/tests?limit=50',
    'GET /v1/test-runs/:runId': `/v1/test-runs/${targets.runId}`,
  };
  const totals = new Map<string, Figures[]>();
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [label, url] of Object.entries(endpoints)) {
        for (const build of ['plain', 'schema'] as const) {
          const figures = await fire(`${targets[build]}${url}`, targets.headers, pid);
          if (figures.errors > 0) throw new Error(`${label} on ${build}: ${figures.errors} failed requests`);
          const key = `${label}|${build}`;
          totals.set(key, [...(totals.get(key) ?? []), figures]);
        }
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  const mean = (list: Figures[], pick: (f: Figures) => number) =>
    list.reduce((sum, f) => sum + pick(f), 0) / list.length;
  for (const label of Object.keys(endpoints)) {
    const plain = totals.get(`${label}|plain`) ?? [];
    const schema = totals.get(`${label}|schema`) ?? [];
    const line = (name: string, list: Figures[]) =>
      `  ${name.padEnd(7)} ${mean(list, (f) => f.rps)
        .toFixed(0)
        .padStart(
          6,
        )} req/s   p99 ${mean(list, (f) => f.p99).toFixed(1)} ms   CPU ${mean(list, (f) => f.cpuMicros).toFixed(0)} µs/req`;
    process.stdout.write(`${label}\n${line('plain', plain)}\n${line('schema', schema)}\n`);
    process.stdout.write(
      `  schema ÷ plain: ${(mean(schema, (f) => f.rps) / mean(plain, (f) => f.rps)).toFixed(2)} (req/s)\n`,
    );
  }
}
