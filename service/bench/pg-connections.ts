/**
 * PostgreSQL connections held by one idle process (issue 19), `npm start` and `npm run worker`.
 *
 *   node bench/pg-connections.ts [--idle 5] [--before <git ref>]
 *
 * Starts the real process (`node src/server.ts`, then `node src/worker.ts`) on its own fresh
 * database of a throwaway cluster (scripts/postgres.mjs, or TEST_DATABASE_URL), waits until
 * it is ready (the API's "Server listening" log line, the worker's `worker ready`) and 3 s
 * more, lets it idle `--idle` seconds, and prints the most sessions seen meanwhile, by
 * `application_name` (pg-boss names its own).
 *
 * `--before <ref>` measures the same two processes of that commit in the same run (its
 * `service/` and `contract/` extracted with `git archive` into a temporary folder beside
 * this checkout's node_modules), so the two figures share the machine's state: issue 19's
 * "before" is the commit before one queue per process, e.g. `--before f88af16^`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    idle: { type: 'string', default: '5' },
    before: { type: 'string' },
  },
});
const idleMs = Number(values.idle) * 1000;
const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.dirname(serviceDir);

let stopPostgres: (() => void | Promise<void>) | undefined;
if (!process.env.TEST_DATABASE_URL) {
  // @ts-expect-error: a plain .mjs script without types
  const { startPostgres } = await import('../../scripts/postgres.mjs');
  const postgres = (await startPostgres()) as { url: string; stop: () => void | Promise<void> };
  process.env.TEST_DATABASE_URL = postgres.url;
  stopPostgres = postgres.stop;
}
const adminUrl = process.env.TEST_DATABASE_URL as string;

async function adminQuery<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function sessions(database: string): Promise<Record<string, number>> {
  const rows = await adminQuery<{ application_name: string; count: string }>(
    `select application_name, count(*) as count from pg_stat_activity
     where datname = $1 and pid <> pg_backend_pid() group by application_name`,
    [database],
  );
  return Object.fromEntries(rows.map((row) => [row.application_name || '(unnamed)', Number(row.count)]));
}
const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A copy of `ref`'s service and contract beside this checkout's packages (the workspaces point at the copy). */
function checkoutOf(ref: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-before-'));
  const archive = execFileSync('git', ['archive', ref, 'service', 'contract', 'package.json'], {
    cwd: repoRoot,
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@stepdeck'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(repoRoot, 'node_modules'))) {
    if (entry === '@stepdeck') continue;
    fs.symlinkSync(path.join(repoRoot, 'node_modules', entry), path.join(modules, entry));
  }
  fs.symlinkSync(path.join(dir, 'contract'), path.join(modules, '@stepdeck', 'contract'));
  fs.symlinkSync(path.join(dir, 'service'), path.join(modules, '@stepdeck', 'service'));
  return dir;
}

async function measure(label: string, source: string, role: 'api' | 'worker') {
  const database = `stepdeck_bench_${role}_${Date.now()}`;
  await adminQuery(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-pgconn-'));
  let child: ChildProcess | undefined;
  let output = '';
  try {
    child = spawn(process.execPath, [path.join(source, 'src', role === 'api' ? 'server.ts' : 'worker.ts')], {
      cwd: source,
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        DATA_DIR: dataDir,
        PORT: '0',
        SMTP_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        ADMIN_PASSWORD: 'bench-admin-password',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child?.on('exit', resolve));
    // Ready: the API logs that it listens, the worker prints `worker ready` (both versions do);
    // then 3 s more for the background work the ready hooks start (queue, timers, runners).
    const deadline = Date.now() + 120_000;
    while (!/Server listening|worker ready/.test(output)) {
      if (child.exitCode !== null) throw new Error(`${label} ${role} exited: ${output.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`${label} ${role} did not start: ${output.slice(-2000)}`);
      await sleep(100);
    }
    await sleep(3000);
    // Idle: the most sessions seen, by application name.
    let most: Record<string, number> = {};
    const idleEnd = Date.now() + idleMs;
    while (Date.now() < idleEnd) {
      const seen = await sessions(database);
      if (total(seen) > total(most)) most = seen;
      await sleep(250);
    }
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    return most;
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await adminQuery(`drop database if exists ${database} with (force)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const describe = (counts: Record<string, number>) =>
  `${total(counts)} (${Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name}: ${n}`)
    .join(', ')})`;

const before = values.before ? checkoutOf(values.before) : undefined;
try {
  const loadAtStart = os.loadavg()[0]?.toFixed(1);
  const lines: string[] = [];
  for (const role of ['api', 'worker'] as const) {
    const now = await measure('this checkout', serviceDir, role);
    let line = `${role === 'api' ? 'npm start' : 'npm run worker'}: ${describe(now)} idle sessions`;
    if (before) {
      const then = await measure(values.before as string, path.join(before, 'service'), role);
      line += `; at ${values.before}: ${describe(then)}; after ÷ before ${(total(now) / total(then)).toFixed(2)}`;
    }
    lines.push(line);
    process.stdout.write(`${line}\n`);
  }
  process.stdout.write(
    `PostgreSQL sessions held by one idle process (most seen over ${values.idle} s idle); load average ${loadAtStart} at the start, ${os.loadavg()[0]?.toFixed(1)} at the end\n`,
  );
} finally {
  if (before) fs.rmSync(before, { recursive: true, force: true });
  await stopPostgres?.();
}
