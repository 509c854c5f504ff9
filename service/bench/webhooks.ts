/**
 * Webhook delivery benchmark (embedded SQLite, real HTTPS receiver on loopback in a child
 * process, so the receiver's TLS work is not charged to the sender).
 *
 *   node bench/webhooks.ts [--latency-runs 50] [--deliveries 1000] [--postgres]
 *
 * `--postgres` runs the service on a throwaway PostgreSQL cluster (scripts/postgres.mjs), so
 * every attempt is announced through the pg-boss queue instead of the in-process one.
 *
 * 1. Latency: time from `run.finished` being emitted to the first attempt's body having
 *    arrived at the receiver (target ≤ 100 ms).
 * 2. Throughput: deliveries per second to a fast receiver (200 OK), from the first event to
 *    the last delivery recorded as succeeded (target ≥ 200/s), with connection reuse (the
 *    default: kept-alive connections and TLS sessions per checked target) and without it
 *    (the baseline: a new connection and full TLS handshake per attempt).
 */
import { type ChildProcess, fork } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { parseArgs } from 'node:util';

const now = () => performance.timeOrigin + performance.now();

if (process.argv.includes('--receiver')) {
  // Child: a fast HTTPS receiver answering 200; reports arrival times of /latency requests.
  process.once('message', (message: { cert: string; key: string }) => {
    let received = 0;
    const server = https.createServer({ cert: message.cert, key: message.key }, (request, response) => {
      request.resume();
      request.on('end', () => {
        received += 1;
        if (request.url?.startsWith('/latency')) process.send?.({ type: 'arrived', at: now() });
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('ok');
      });
    });
    server.listen(0, '127.0.0.1', () => {
      process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port });
    });
    process.on('message', (next: { type: string }) => {
      if (next.type === 'count') process.send?.({ type: 'count', received });
      if (next.type === 'stop') server.close(() => process.exit(0));
    });
  });
} else {
  await main();
}

async function main() {
  const { consoleCall, createTestApp } = await import('../test/helper.ts');
  const { finishedRun, makeCertificate } = await import('../test/modules/webhooks/receiver.ts');

  const { values } = parseArgs({
    options: {
      'latency-runs': { type: 'string', default: '50' },
      deliveries: { type: 'string', default: '1000' },
      receiver: { type: 'boolean', default: false },
      postgres: { type: 'boolean', default: false },
    },
  });
  let stopPostgres: (() => void) | undefined;
  if (values.postgres && !process.env.TEST_DATABASE_URL) {
    // @ts-expect-error: a plain .mjs script without types
    const { startPostgres } = await import('../../scripts/postgres.mjs');
    const postgres = (await startPostgres()) as { url: string; stop: () => void };
    process.env.TEST_DATABASE_URL = postgres.url;
    stopPostgres = postgres.stop;
  }
  const latencyRuns = Number(values['latency-runs']);
  const totalDeliveries = Number(values.deliveries);

  const certificate = makeCertificate();
  const child: ChildProcess = fork(import.meta.filename, ['--receiver'], { stdio: 'inherit' });
  const arrivals: number[] = [];
  const arrivalWaiters: Array<() => void> = [];
  const port = await new Promise<number>((resolve) => {
    child.on('message', (message: { type: string; port?: number; at?: number }) => {
      if (message.type === 'listening') resolve(message.port as number);
      if (message.type === 'arrived') {
        arrivals.push(message.at as number);
        for (const waiter of arrivalWaiters.splice(0)) waiter();
      }
    });
    child.send({ cert: certificate.cert, key: certificate.key });
  });

  const t = await createTestApp({
    env: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' },
    ...(values.postgres ? { database: 'postgres' as const } : {}),
  });
  t.app.webhooks.configure({ ca: certificate.cert });
  await t.app.webhooks.start();
  const stop = () => t.app.webhooks.stop();
  const cookie = await t.consoleCookie();

  async function addWebhook(pathname: string) {
    const response = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/webhooks',
      payload: { url: `https://127.0.0.1:${port}${pathname}`, events: ['run.completed', 'run.failed'] },
    });
    if (response.statusCode !== 201) throw new Error(response.body);
  }

  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

  // 1. Latency, one webhook, one event at a time.
  await addWebhook('/latency');
  const latencies: number[] = [];
  for (let index = 0; index < latencyRuns; index += 1) {
    const before = arrivals.length;
    const started = now();
    t.ctx.events.emit('run.finished', finishedRun(t.bootstrap.organizationId));
    while (arrivals.length <= before) await new Promise<void>((resolve) => arrivalWaiters.push(resolve));
    latencies.push((arrivals[before] as number) - started);
    // Spaced like real run ends, so each event finds the dispatcher idle.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p95 = percentile(latencies, 95);
  const max = latencies[latencies.length - 1] ?? Number.NaN;

  // 2. Throughput with 20 webhooks, one event → 20 deliveries.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await t.ctx.db.deleteFrom('webhookDeliveries').execute();
  await t.ctx.db.deleteFrom('webhooks').execute();
  const fanOut = 20;
  for (let index = 0; index < fanOut; index += 1) await addWebhook(`/throughput/${index}`);
  const runs = Math.ceil(totalDeliveries / fanOut);

  async function throughput(reuseConnections: boolean) {
    t.app.webhooks.configure({ reuseConnections });
    await t.ctx.db.deleteFrom('webhookDeliveries').execute();
    const load = os.loadavg()[0] ?? 0;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    for (let index = 0; index < runs; index += 1) {
      t.ctx.events.emit('run.finished', finishedRun(t.bootstrap.organizationId));
    }
    for (;;) {
      const row = await t.ctx.db
        .selectFrom('webhookDeliveries')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('status', '=', 'succeeded')
        .executeTakeFirst();
      if (Number(row?.count ?? 0) >= runs * fanOut) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      rate: (runs * fanOut) / seconds,
      seconds,
      cpuMsPerDelivery: (cpu.user + cpu.system) / 1000 / (runs * fanOut),
      load,
    };
  }

  const reused = await throughput(true);
  const fresh = await throughput(false);
  const reusedAgain = await throughput(true);

  console.log(
    `webhooks benchmark (${values.postgres ? 'PostgreSQL + pg-boss queue' : 'SQLite + in-process queue'}, HTTPS receiver on loopback in a child process; ${os.cpus().length} CPUs)`,
  );
  console.log(
    `  run.finished → first attempt arrives: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${latencyRuns} runs (target ≤ 100 ms; p95/target ${(p95 / 100).toFixed(2)})`,
  );
  const line = (label: string, figures: Awaited<ReturnType<typeof throughput>>) =>
    console.log(
      `  ${label}: ${runs * fanOut} deliveries in ${figures.seconds.toFixed(2)} s = ${figures.rate.toFixed(0)}/s (target ≥ 200/s; ratio ${(figures.rate / 200).toFixed(2)}); sender CPU ${figures.cpuMsPerDelivery.toFixed(2)} ms/delivery; load ${figures.load.toFixed(1)}`,
    );
  line('throughput, connection reuse (default)        ', reused);
  line('throughput, new TLS connection per attempt    ', fresh);
  line('throughput, connection reuse (again)          ', reusedAgain);
  console.log(
    `  reuse vs per-attempt connections: ${((reused.rate + reusedAgain.rate) / 2 / fresh.rate).toFixed(2)}x deliveries/s; concurrency ${t.app.webhooks.settings.concurrency}`,
  );

  await stop?.();
  await t.close();
  child.send({ type: 'stop' });
  stopPostgres?.();
}
