/**
 * Authentication overhead benchmark (embedded SQLite, loopback HTTP, autocannon).
 *
 *   node bench/auth.ts [--duration 5] [--connections 10] [--rounds 2]
 *
 * In one run, on this machine: requests/s and p99 latency of
 *   - an authenticated GET on the real app (API key looked up in the database on every
 *     request, scopes checked, rate limiter counting): GET /v1/email-inboxes/limits, and
 *     GET /v1/tests (adds the x-project-id / default-branch lookups and a real list query);
 *   - a bare Fastify route answering the same JSON with no hooks at all;
 *   - for reference, the real app's unauthenticated GET /healthz (its plugins, no key lookup).
 * Prints authenticated ÷ bare (target ≥ 0.85 for the key-only route).
 *
 * The servers run in a child process so autocannon does not share their event loop. Both use
 * no request logging; the rate limit is raised so the benchmark measures the limiter's cost,
 * not 429s. Rounds alternate bare/authenticated to spread machine noise over both.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { hashToken } from '../src/plugins/auth/secrets.ts';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
  },
});

interface Targets {
  bare: string;
  auth: string;
  apiKey: string;
  projectId: string;
}

if (values.serve) await serve();
else await measure();

/** Child process: the real app and a bare Fastify app, each on its own loopback port. */
async function serve(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-auth-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: String(1_000_000_000),
  });
  const { app, bootstrap, ctx } = await buildApp({ config, logger: false, background: false });
  const ctxDb = ctx.db;
  if (!bootstrap) throw new Error('expected a fresh install');
  const limits = await app.inject({
    method: 'GET',
    url: '/v1/email-inboxes/limits',
    headers: { 'x-api-key': bootstrap.apiKey },
  });
  const body = limits.body;
  await app.listen({ port: 0, host: '127.0.0.1' });

  const bare = Fastify({ logger: false });
  bare.get('/bare', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  // Reference: the bare route plus one raw better-sqlite3 lookup of the key (no Kysely, no hooks).
  const raw = new SqliteDatabase(path.join(dataDir, 'stepdeck.sqlite'), { readonly: true });
  const findKey = raw.prepare('select "id", "scopes" from "apiKeys" where "keyHash" = ?');
  const { apiKeyLookup } = await import('../src/modules/accounts/public.ts');
  const lookup = apiKeyLookup(ctxDb);
  bare.get('/bare-kysely', async (request, reply) => {
    const found = await lookup(String(request.headers['x-api-key']));
    if (!found.principal) return reply.code(401).send({ message: 'Invalid API key' });
    return reply.type('application/json; charset=utf-8').send(body);
  });
  bare.get('/bare-sqlite', async (request, reply) => {
    const row = findKey.get(hashToken(String(request.headers['x-api-key'])));
    if (!row) return reply.code(401).send({ message: 'Invalid API key' });
    return reply.type('application/json; charset=utf-8').send(body);
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });

  const targets: Targets = {
    bare: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`,
    auth: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    apiKey: bootstrap.apiKey,
    projectId: bootstrap.projectId,
  };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  process.on('SIGTERM', () => {
    void Promise.all([app.close(), bare.close()]).then(() => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

interface Figures {
  rps: number;
  p99: number;
  errors: number;
  /** Server CPU time per request (user + system, from /proc): robust to a busy machine. */
  cpuMicros: number;
}

/** CPU time used so far by a process, in microseconds (Linux /proc; clock ticks of 10 ms). */
function cpuTimeOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / 100;
}

async function fire(
  url: string,
  headers: Record<string, string>,
  duration: number,
  pid: number,
): Promise<Figures> {
  const cpuBefore = cpuTimeOf(pid);
  const result = await autocannon({
    url,
    headers,
    duration,
    connections: Number(values.connections),
    pipelining: 1,
  });
  const cpu = cpuTimeOf(pid) - cpuBefore;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuMicros: cpu / Math.max(1, result.requests.total),
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
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const { child, targets } = await startChild();
  const pid = child.pid as number;
  const cases = {
    bare: { url: `${targets.bare}/bare`, headers: {} },
    'bare + raw SQLite key lookup': {
      url: `${targets.bare}/bare-sqlite`,
      headers: { 'x-api-key': targets.apiKey },
    },
    'bare + joined lookup via Kysely': {
      url: `${targets.bare}/bare-kysely`,
      headers: { 'x-api-key': targets.apiKey },
    },
    'GET /healthz (same app, no auth)': { url: `${targets.auth}/healthz`, headers: {} },
    'GET /v1/email-inboxes/limits': {
      url: `${targets.auth}/v1/email-inboxes/limits`,
      headers: { 'x-api-key': targets.apiKey },
    },
    'GET /v1/tests': {
      url: `${targets.auth}/v1/tests`,
      headers: { 'x-api-key': targets.apiKey, 'x-project-id': targets.projectId },
    },
  } as const;
  type Case = keyof typeof cases;
  const totals = new Map<Case, Figures[]>();
  try {
    // Warm-up (JIT, SQLite page cache) is not counted.
    for (const name of Object.keys(cases) as Case[]) await fire(cases[name].url, cases[name].headers, 2, pid);
    for (let round = 0; round < rounds; round++) {
      for (const name of Object.keys(cases) as Case[]) {
        const figures = await fire(cases[name].url, cases[name].headers, duration, pid);
        if (figures.errors > 0) throw new Error(`${name}: ${figures.errors} failed requests`);
        totals.set(name, [...(totals.get(name) ?? []), figures]);
      }
    }
  } finally {
    child.kill('SIGTERM');
  }

  const mean = (name: Case) => {
    const list = totals.get(name) ?? [];
    return {
      rps: list.reduce((sum, f) => sum + f.rps, 0) / list.length,
      p99: list.reduce((sum, f) => sum + f.p99, 0) / list.length,
      cpuMicros: list.reduce((sum, f) => sum + f.cpuMicros, 0) / list.length,
    };
  };
  const bare = mean('bare');
  console.log(
    `auth benchmark: ${Number(values.connections)} connections, ${rounds} × ${duration}s per case, ${os.cpus().length} CPUs`,
  );
  console.log(
    `${'case'.padEnd(34)} ${'req/s'.padStart(8)} ${'p99 ms'.padStart(7)} ${'÷ bare'.padStart(7)} ${'server CPU µs/req'.padStart(18)} ${'bare ÷ this CPU'.padStart(16)}`,
  );
  for (const name of Object.keys(cases) as Case[]) {
    const figures = mean(name);
    console.log(
      `${name.padEnd(34)} ${figures.rps.toFixed(0).padStart(8)} ${figures.p99.toFixed(1).padStart(7)} ${(figures.rps / bare.rps).toFixed(3).padStart(7)} ${figures.cpuMicros.toFixed(1).padStart(18)} ${(bare.cpuMicros / figures.cpuMicros).toFixed(3).padStart(16)}`,
    );
  }
  const auth = mean('GET /v1/email-inboxes/limits');
  const ratio = auth.rps / bare.rps;
  console.log(
    `authenticated ÷ bare (GET /v1/email-inboxes/limits): ${ratio.toFixed(3)} req/s, p99 ${auth.p99.toFixed(1)} ms vs ${bare.p99.toFixed(1)} ms; ` +
      `by server CPU per request ${(bare.cpuMicros / auth.cpuMicros).toFixed(3)} (target ≥ 0.85: ${ratio >= 0.85 ? 'met' : 'NOT met'})`,
  );
}
