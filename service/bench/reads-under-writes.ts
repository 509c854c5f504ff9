/**
 * Reads under write load (issue 25), on SQLite and PostgreSQL, the real app through `inject`.
 *
 *   node bench/reads-under-writes.ts [--tests 500] [--reads 300] [--writers 50]
 *
 * For each database: seeds `--tests` tests, then measures `GET /v1/tests?limit=50` p50/p99
 * over `--reads` sequential requests alone, then again while `--writers` clients create tests
 * (each a multipart create with 3 steps, back to back), then alone again: the writers grow
 * the table many times over while the loaded reads run, so the ratio is taken against the
 * read alone on the grown table (the one before is printed too). Target: p99 ratio ≤ 3. PostgreSQL: a throwaway cluster (scripts/postgres.mjs) unless TEST_DATABASE_URL.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    tests: { type: 'string', default: '500' },
    reads: { type: 'string', default: '300' },
    writers: { type: 'string', default: '50' },
  },
});
const seedCount = Number(values.tests);
const readCount = Number(values.reads);
const writerCount = Number(values.writers);

let stopPostgres: (() => void) | undefined;
if (!process.env.TEST_DATABASE_URL) {
  // @ts-expect-error: a plain .mjs script without types
  const { startPostgres } = await import('../../scripts/postgres.mjs');
  const postgres = (await startPostgres()) as { url: string; stop: () => void };
  process.env.TEST_DATABASE_URL = postgres.url;
  stopPostgres = postgres.stop;
}
const { createTestApp } = await import('../test/helper.ts');

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

async function createForm(name: string) {
  const form = new FormData();
  form.append(
    'testData',
    JSON.stringify({
      name,
      steps: [1, 2, 3].map((index) => ({
        name: `step ${index}`,
        action: { name: 'goto', url: `https://example.com/${index}` },
      })),
    }),
  );
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') as string,
  };
}

async function measure(database: 'sqlite' | 'postgres') {
  const t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
  try {
    const create = async (name: string) => {
      const form = await createForm(name);
      const response = await t.api({
        method: 'POST',
        url: '/v1/tests',
        payload: form.payload,
        headers: { 'content-type': form.contentType },
      });
      if (response.statusCode !== 200) throw new Error(`create: ${response.statusCode} ${response.body}`);
    };
    for (let index = 0; index < seedCount; index++) await create(`seed ${index}`);

    const readP = async () => {
      const times: number[] = [];
      for (let index = 0; index < readCount; index++) {
        const started = performance.now();
        const response = await t.api({ method: 'GET', url: '/v1/tests?limit=50' });
        times.push(performance.now() - started);
        if (response.statusCode !== 200) throw new Error(`list: ${response.statusCode}`);
      }
      return times.sort((a, b) => a - b);
    };
    for (let index = 0; index < 20; index++) await t.api({ method: 'GET', url: '/v1/tests?limit=50' });
    const alone = await readP();

    let writing = true;
    let created = 0;
    const writers = Array.from({ length: writerCount }, async (_, worker) => {
      for (let index = 0; writing; index++) {
        await create(`w${worker}-${index}`);
        created++;
      }
    });
    const started = performance.now();
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const loaded = await readP();
    lag.disable();
    const seconds = (performance.now() - started) / 1000;
    writing = false;
    await Promise.all(writers);
    const after = await readP();

    const p = (times: number[], at: number) => `${percentile(times, at).toFixed(1)} ms`;
    const p99 = (times: number[]) => percentile(times, 99) as number;
    process.stdout.write(
      `${database}: GET /v1/tests?limit=50 alone (${seedCount} tests) p50 ${p(alone, 50)}, p99 ${p(alone, 99)}; ` +
        `with ${writerCount} writers (${created} created, ${(created / seconds).toFixed(0)}/s) p50 ${p(loaded, 50)}, p99 ${p(loaded, 99)}; ` +
        `alone after (${seedCount + created} tests) p50 ${p(after, 50)}, p99 ${p(after, 99)}\n` +
        `${database}: event-loop delay under the writers p50 ${(lag.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms\n` +
        `${database}: p99 ratio ${(p99(loaded) / p99(after)).toFixed(2)} (target ≤ 3; against the first read alone ${(p99(loaded) / p99(alone)).toFixed(2)})\n`,
    );
  } finally {
    await t.close();
  }
}

try {
  await measure('sqlite');
  await measure('postgres');
} finally {
  stopPostgres?.();
}
