/**
 * Reads under write load (issue 25), on SQLite and PostgreSQL, the real app on a loopback port.
 *
 *   node bench/reads-under-writes.ts [--tests 500] [--reads 300] [--seconds 5] [--writers 50]
 *                                    [--database sqlite|postgres|both] [--pg-at-once 4,6]
 *                                    [--admit-at-once 1,3] [--sqlite-yield-after-ms 10]
 *                                    [--baselines false]
 *
 * The service listens in the main thread; the clients run in worker threads of this file, so
 * their work (encoding bodies, parsing answers) does not run on the service's event loop, and
 * every request reaches the service as socket I/O, as it would in production. (Through
 * `inject`, a read is answered in microtasks alone: a loop of reads never yielded to the
 * writers' multipart parsing, which starved them, down to 0 creates while the reads ran.)
 * The reader has a thread of its own, apart from the writers' thread, as it would be another
 * client: in one thread with the 50 writers, the slowest reads spent up to ~120 ms after the
 * service had answered, waiting for that thread to handle the writers' answers first.
 *
 * For each database: seeds `--tests` tests, then measures `GET /v1/tests?limit=50` p50/p99
 * over `--reads` sequential requests alone, then again while `--writers` clients create tests
 * (each a multipart create with 3 steps, back to back; the reads start once every writer has
 * had a create answered, and last at least `--seconds`), then alone again: the writers grow
 * the table many times over while the loaded reads run, so the ratio is taken against the read
 * alone on the grown table (the one before is printed too). Target: p99 ratio ≤ 3. Each line
 * carries the load average, as the figures depend on what else the machine runs.
 *
 * Each database runs on fresh databases in the same run: without write turns (as before issue
 * 25's fix) and with the product's (`writeTurnRules`, docs/concurrency.md); SQLite also with
 * the turns alone (without the write admission of `writeAdmissionRules`), with each number
 * of `--admit-at-once` admitted requests and with each `--sqlite-yield-after-ms` slice of
 * back-to-back write transactions (the product gives every transaction a turn of its own); PostgreSQL also with each cap of `--pg-at-once` on
 * concurrent write transactions. Each measure prints the CPU time the process used while its
 * loaded reads ran (per create), as wall-clock figures depend on the machine's load. About 40 s per measure
 * (six measures by default: 4–5 minutes on the 2-core VM). Prints each ratio with its verdict.
 * PostgreSQL: a throwaway cluster (scripts/postgres.mjs) unless TEST_DATABASE_URL.
 */
import os from 'node:os';
import { type EventLoopUtilization, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { WriteTurnRules } from '../src/adapters/db/write-turns.ts';
import type { WriteAdmissionRules } from '../src/plugins/write-admission.ts';

interface ClientPlan {
  /** The thread of the writers (which also seeds and leads), or of the reader. */
  role: 'writers' | 'reader';
  baseUrl: string;
  headers: Record<string, string>;
  seedCount: number;
  readCount: number;
  minSeconds: number;
  writerCount: number;
}

/** What the client thread reports: phases as they start and end, then the timings. */
type ClientMessage =
  | { phase: 'loaded-start' | 'loaded-end' }
  | {
      phase: 'done';
      alone: number[];
      loaded: number[];
      after: number[];
      seconds: number;
      createdLoaded: number;
      createdTotal: number;
    };

/** What the writers' thread asks the reader's: `readCount` reads, for at least `atLeastMs`. */
interface ReadOrder {
  atLeastMs: number;
}

if (isMainThread) await main();
else if ((workerData as ClientPlan).role === 'reader') runReader(workerData as ClientPlan);
else await runClients(workerData as ClientPlan);

async function main() {
  const { values } = parseArgs({
    options: {
      tests: { type: 'string', default: '500' },
      reads: { type: 'string', default: '300' },
      seconds: { type: 'string', default: '5' },
      writers: { type: 'string', default: '50' },
      database: { type: 'string', default: 'both' },
      // PostgreSQL write-transaction caps to compare in the same run (the product's is writeTurnRules).
      'pg-at-once': { type: 'string', default: '4,6' },
      // SQLite write admission places to compare in the same run (the product's is writeAdmissionRules).
      'admit-at-once': { type: 'string', default: '' },
      // SQLite slices of write turns to compare in the same run (the product's is writeTurnRules).
      'sqlite-yield-after-ms': { type: 'string', default: '' },
      // `false` skips the measures without write turns and without admission (minutes at load).
      baselines: { type: 'string', default: 'true' },
    },
  });
  const plan = {
    seedCount: Number(values.tests),
    readCount: Number(values.reads),
    minSeconds: Number(values.seconds),
    writerCount: Number(values.writers),
  };

  let stopPostgres: (() => void) | undefined;
  if (values.database !== 'sqlite' && !process.env.TEST_DATABASE_URL) {
    // @ts-expect-error: a plain .mjs script without types
    const { startPostgres } = await import('../../scripts/postgres.mjs');
    const postgres = (await startPostgres()) as { url: string; stop: () => void };
    process.env.TEST_DATABASE_URL = postgres.url;
    stopPostgres = postgres.stop;
  }
  const { createTestApp } = await import('../test/helper.ts');
  const { writeTurnRules } = await import('../src/adapters/db/index.ts');
  const { limitWriteTransactions } = await import('../src/adapters/db/locks.ts');
  const { admitWrites, writeAdmissionRules } = await import('../src/plugins/write-admission.ts');
  const loadAverage = () => os.loadavg()[0]?.toFixed(1);
  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

  /**
   * With the product's write turns (`writeTurnRules`), other rules (`turns`: a PostgreSQL cap
   * to compare), or without any (`turns: false`, as before); with the product's write
   * admission (`writeAdmissionRules`, `admission: true`) or without (as before).
   */
  async function measure(
    database: 'sqlite' | 'postgres',
    turns: boolean | WriteTurnRules,
    admission: boolean | WriteAdmissionRules = true,
  ) {
    const t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
    if (!turns) limitWriteTransactions(t.ctx.db, undefined);
    else if (turns !== true) limitWriteTransactions(t.ctx.db, turns);
    if (!admission) admitWrites(t.ctx.db, undefined);
    else if (admission !== true) admitWrites(t.ctx.db, admission);
    const rules = turns === true ? writeTurnRules[database] : turns;
    const admitted = admission === true ? writeAdmissionRules[database] : admission || undefined;
    const label =
      `${database}, ${rules ? `write turns ${JSON.stringify(rules)}` : 'no write turns'}` +
      (admitted ? `, write admission ${JSON.stringify(admitted)}` : '');
    try {
      const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const lag = monitorEventLoopDelay({ resolution: 10 });
      let loadAtStart: string | undefined;
      // CPU time while the loaded reads run: the process's (service and client thread), and
      // the share of wall time the service's event loop was busy.
      let cpuAtStart: NodeJS.CpuUsage | undefined;
      let cpuLoaded = { user: 0, system: 0 };
      let busyAtStart: EventLoopUtilization | undefined;
      let busyLoaded: EventLoopUtilization | undefined;
      const result = await new Promise<Extract<ClientMessage, { phase: 'done' }>>((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), {
          workerData: { ...plan, role: 'writers', baseUrl: address, headers: t.headers } satisfies ClientPlan,
        });
        worker.on('message', (message: ClientMessage) => {
          if (message.phase === 'done') resolve(message);
          else if (message.phase === 'loaded-start') {
            loadAtStart = loadAverage();
            lag.enable();
            cpuAtStart = process.cpuUsage();
            busyAtStart = performance.eventLoopUtilization();
          } else {
            lag.disable();
            cpuLoaded = process.cpuUsage(cpuAtStart);
            busyLoaded = performance.eventLoopUtilization(busyAtStart);
          }
        });
        worker.on('error', reject);
        worker.on('exit', (code) => reject(new Error(`client thread exited (${code})`)));
      });
      const { alone, loaded, after, seconds, createdLoaded, createdTotal } = result;
      const p = (times: number[], at: number) => `${percentile(times, at).toFixed(1)} ms`;
      const p99 = (times: number[]) => percentile(times, 99) as number;
      const ratio = p99(loaded) / p99(after);
      // The whole process (service and client thread): CPU seconds per create, as the load varies.
      const cpuSeconds = (cpuLoaded.user + cpuLoaded.system) / 1e6;
      process.stdout.write(
        `${label}: GET /v1/tests?limit=50 alone (${plan.seedCount} tests) p50 ${p(alone, 50)}, p99 ${p(alone, 99)}; ` +
          `with ${plan.writerCount} writers (${loaded.length} reads in ${seconds.toFixed(1)} s; ${createdLoaded} created meanwhile, ${(createdLoaded / seconds).toFixed(0)}/s) p50 ${p(loaded, 50)}, p99 ${p(loaded, 99)}; ` +
          `alone after (${plan.seedCount + createdTotal} tests) p50 ${p(after, 50)}, p99 ${p(after, 99)}\n` +
          `${label}: the service's event-loop delay under the writers p50 ${(lag.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms\n` +
          `${label}: p99 ratio ${ratio.toFixed(2)} (target ≤ 3: ${ratio <= 3 ? 'met' : 'NOT met'}; against the first read alone ${(p99(loaded) / p99(alone)).toFixed(2)}); ` +
          `load average ${loadAtStart} at the start of the loaded reads, ${loadAverage()} at the end; ` +
          `while the loaded reads ran: process CPU ${cpuSeconds.toFixed(1)} s (${((cpuSeconds * 1000) / Math.max(1, createdLoaded)).toFixed(2)} ms per create, service and client thread), the service's event loop busy ${(100 * (busyLoaded?.utilization ?? 0)).toFixed(0)}% of the time\n`,
      );
      return ratio;
    } finally {
      await t.close();
    }
  }

  try {
    const summary: string[] = [];
    for (const database of ['sqlite', 'postgres'] as const) {
      if (values.database !== 'both' && values.database !== database) continue;
      const baselines = values.baselines !== 'false';
      const verdict = (ratio: number) => `${ratio.toFixed(2)} (${ratio <= 3 ? 'met' : 'NOT met'})`;
      const line = [`${database}: p99 ratio (target ≤ 3)`];
      if (baselines) line.push(`without write turns ${(await measure(database, false, false)).toFixed(2)}`);
      const admission = writeAdmissionRules[database];
      if (admission && baselines)
        line.push(
          `with the write turns ${JSON.stringify(writeTurnRules[database])} alone ${verdict(await measure(database, true, false))}`,
        );
      const after = await measure(database, true);
      line.push(
        `with the product's ${JSON.stringify(writeTurnRules[database])}${admission ? ` and write admission ${JSON.stringify(admission)}` : ''} ${verdict(after)}`,
      );
      if (database === 'sqlite' && values['sqlite-yield-after-ms'])
        for (const yieldAfterMs of values['sqlite-yield-after-ms'].split(',').map(Number)) {
          if (!(yieldAfterMs >= 0) || yieldAfterMs === writeTurnRules.sqlite.yieldAfterMs) continue;
          line.push(
            `with a turn after ${yieldAfterMs} ms of write transactions ${verdict(await measure(database, { ...writeTurnRules.sqlite, yieldAfterMs }))}`,
          );
        }
      if (admission && values['admit-at-once'])
        for (const atOnce of values['admit-at-once'].split(',').map(Number)) {
          if (!(atOnce > 0) || atOnce === admission.atOnce) continue;
          line.push(
            `with ${atOnce} admitted at once ${verdict(await measure(database, true, { ...admission, atOnce }))}`,
          );
        }
      if (database === 'postgres')
        for (const atOnce of values['pg-at-once'].split(',').map(Number)) {
          if (!(atOnce > 0) || atOnce === writeTurnRules.postgres.atOnce) continue;
          line.push(`with ${atOnce} at once ${verdict(await measure(database, { atOnce }))}`);
        }
      summary.push(`${line.join(', ')}; load average ${loadAverage()}`);
    }
    process.stdout.write(`${summary.join('\n')}\n`);
  } finally {
    stopPostgres?.();
  }
}

/** The reader's thread: on each order of the writers' thread, times `readCount` sequential reads. */
function runReader(plan: ClientPlan) {
  const agentReady = import('undici').then(({ Agent, request }) => ({
    agent: new Agent({ connections: 1 }),
    request,
  }));
  parentPort?.on('message', async (order: ReadOrder | 'close') => {
    const { agent, request } = await agentReady;
    if (order === 'close') {
      await agent.close();
      parentPort?.close();
      return;
    }
    const list = async () => {
      const response = await request(`${plan.baseUrl}/v1/tests?limit=50`, {
        dispatcher: agent,
        headers: plan.headers,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`list: ${response.statusCode}`);
    };
    const times: number[] = [];
    const started = performance.now();
    for (let index = 0; index < plan.readCount || performance.now() - started < order.atLeastMs; index++) {
      const begun = performance.now();
      await list();
      times.push(performance.now() - begun);
    }
    parentPort?.postMessage(times.sort((a, b) => a - b));
  });
}

/** The writers' thread: seeds, then has the reader time the reads alone, loaded, alone. */
async function runClients(plan: ClientPlan) {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ connections: plan.writerCount + 4 });
  const report = (message: ClientMessage) => parentPort?.postMessage(message);
  const reader = new Worker(new URL(import.meta.url), { workerData: { ...plan, role: 'reader' } });
  reader.on('error', (error) => {
    throw error;
  });

  // Built once per name, not per create: encoding a body is the client's work, not the service's.
  const forms = new Map<string, { payload: Buffer; contentType: string }>();
  const createForm = async (name: string) => {
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
    const encoded = new Request('http://localhost/', { method: 'POST', body: form });
    return {
      payload: Buffer.from(await encoded.arrayBuffer()),
      contentType: encoded.headers.get('content-type') as string,
    };
  };
  const create = async (name: string) => {
    let form = forms.get(name);
    if (!form) {
      form = await createForm(name);
      forms.set(name, form);
    }
    const response = await request(`${plan.baseUrl}/v1/tests`, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...plan.headers, 'content-type': form.contentType },
      body: form.payload,
    });
    const body = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`create: ${response.statusCode} ${body}`);
  };
  const timeReads = (atLeastMs = 0) =>
    new Promise<number[]>((resolve) => {
      reader.once('message', resolve);
      reader.postMessage({ atLeastMs } satisfies ReadOrder);
    });

  for (let index = 0; index < plan.seedCount; index++) await create(`seed ${index % 50}`);
  await timeReads(); // warm-up
  const alone = await timeReads();

  let writing = true;
  let created = 0;
  const writers = Array.from({ length: plan.writerCount }, async (_, worker) => {
    while (writing) {
      await create(`writer ${worker}`);
      created++;
    }
  });
  // The reads start once every writer has had a create answered: under full load.
  while (created < plan.writerCount) await new Promise((resolve) => setTimeout(resolve, 5));
  const createdBefore = created;
  report({ phase: 'loaded-start' });
  const started = performance.now();
  const loaded = await timeReads(plan.minSeconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  const createdLoaded = created - createdBefore;
  report({ phase: 'loaded-end' });
  writing = false;
  await Promise.all(writers);
  const after = await timeReads();
  reader.postMessage('close');
  await agent.close();
  report({ phase: 'done', alone, loaded, after, seconds, createdLoaded, createdTotal: created });
}
