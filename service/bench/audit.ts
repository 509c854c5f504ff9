/**
 * The audit log's cost on a changing request (issue 15), on SQLite and PostgreSQL.
 *
 *   node bench/audit.ts [--requests 2000] [--block 100] [--database sqlite|postgres|both]
 *
 * The request: `PUT /console/v1/projects/:projectId/presets/:presetId` with a console session
 * (authentication, validation, one UPDATE), through `inject`, sequentially. Two variants in the
 * same run and the same app, alternating in blocks of `--block` requests so that load from the
 * rest of the machine falls on both alike:
 * - with the audit entry (the product: an INSERT inside the change's transaction, an UPDATE with
 *   the outcome after the response);
 * - without it (for the block, `AuditLog.prepare` hands the adapter a `select 1` instead of the
 *   entry's INSERT and `AuditLog.finish` does nothing: the hooks and the transaction scope still
 *   run, so the difference is the entry's own two statements).
 * Reported per variant: wall-clock and CPU (process.cpuUsage) microseconds per request, medians of
 * the blocks, and the ratio with/without. Each line carries the load average.
 * PostgreSQL: a throwaway cluster (scripts/postgres.mjs) unless TEST_DATABASE_URL.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CompiledQuery } from 'kysely';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    block: { type: 'string', default: '100' },
    database: { type: 'string', default: 'both' },
  },
});
const requests = Number(values.requests);
const block = Number(values.block);

let stopPostgres: (() => void) | undefined;
if (values.database !== 'sqlite' && !process.env.TEST_DATABASE_URL) {
  // @ts-expect-error: a plain .mjs script without types
  const { startPostgres } = await import('../../scripts/postgres.mjs');
  const postgres = (await startPostgres()) as { url: string; stop: () => void };
  process.env.TEST_DATABASE_URL = postgres.url;
  stopPostgres = postgres.stop;
}
const { consoleCall, createTestApp } = await import('../test/helper.ts');
const { AuditLog } = await import('../src/modules/audit/service.ts');

const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const realPrepare = AuditLog.prototype.prepare;
const realFinish = AuditLog.prototype.finish;
const noEntry: typeof realPrepare = async function (this: InstanceType<typeof AuditLog>, request) {
  const { row } = await realPrepare.call(this, request);
  return { row, statement: CompiledQuery.raw('select 1') };
};
function auditEntries(on: boolean) {
  AuditLog.prototype.prepare = on ? realPrepare : noEntry;
  AuditLog.prototype.finish = on ? realFinish : async () => undefined;
}

async function measure(database: 'sqlite' | 'postgres') {
  const t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
  try {
    const cookie = await t.consoleCookie();
    const url = `/console/v1/projects/${t.bootstrap.projectId}/presets`;
    const created = await consoleCall(t.app, cookie, {
      method: 'POST',
      url,
      payload: { name: 'bench', config: { retries: 1 } },
    });
    if (created.statusCode !== 201) throw new Error(`preset: ${created.statusCode} ${created.body}`);
    const presetUrl = `${url}/${created.json().data.id}`;
    let counter = 0;
    const change = async () => {
      counter++;
      const answer = await consoleCall(t.app, cookie, {
        method: 'PUT',
        url: presetUrl,
        payload: { config: { retries: counter % 3 } },
      });
      if (answer.statusCode !== 200) throw new Error(`update: ${answer.statusCode} ${answer.body}`);
    };
    // Warm-up: JIT, statement caches, the session cache.
    for (let i = 0; i < 200; i++) await change();

    const wall = { with: [] as number[], without: [] as number[] };
    const cpu = { with: [] as number[], without: [] as number[] };
    const loadAtStart = loadAverage();
    const before = await t.ctx.db
      .selectFrom('auditLog')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (let done = 0; done < requests; done += 2 * block) {
      for (const variant of ['with', 'without'] as const) {
        auditEntries(variant === 'with');
        const cpuStart = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < block; i++) await change();
        const elapsed = performance.now() - started;
        const used = process.cpuUsage(cpuStart);
        wall[variant].push((elapsed * 1000) / block);
        cpu[variant].push((used.user + used.system) / block);
      }
    }
    auditEntries(true);
    const after = await t.ctx.db
      .selectFrom('auditLog')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const written = Number(after.n) - Number(before.n);
    const line = (name: string, figures: { with: number[]; without: number[] }) => {
      const withAudit = median(figures.with);
      const without = median(figures.without);
      return `${name} ${withAudit.toFixed(0)} µs with the entry, ${without.toFixed(0)} µs without (ratio ${(withAudit / without).toFixed(2)}, +${(withAudit - without).toFixed(0)} µs)`;
    };
    process.stdout.write(
      `${database}: PUT preset, ${wall.with.length * block} requests per variant in blocks of ${block} ` +
        `(${written} audit entries written by the "with" blocks)\n` +
        `${database}: ${line('wall', wall)}\n` +
        `${database}: ${line('CPU', cpu)}\n` +
        `${database}: load average ${loadAtStart} at the start, ${loadAverage()} at the end\n`,
    );
  } finally {
    auditEntries(true);
    await t.close();
  }
}

try {
  const databases =
    values.database === 'both'
      ? (['sqlite', 'postgres'] as const)
      : [values.database as 'sqlite' | 'postgres'];
  for (const database of databases) await measure(database);
} finally {
  stopPostgres?.();
}
