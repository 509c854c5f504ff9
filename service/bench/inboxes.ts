/**
 * Email inbox benchmark: messages per second accepted over SMTP from 10 concurrent senders,
 * and `GET /v1/email-inboxes/:id/messages` latency with 1000 messages stored.
 *
 *   node bench/inboxes.ts                        # SQLite in a temporary DATA_DIR
 *   BENCH_DATABASE_URL=postgres://… node bench/inboxes.ts
 *   BENCH_MESSAGES=5000 node bench/inboxes.ts    # messages sent (default 3000)
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const senders = 10;
const total = Number(process.env.BENCH_MESSAGES ?? 3000);
const reads = 300;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-inboxes-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  PORT: '0',
  SMTP_PORT: '0',
  LOG_LEVEL: 'silent',
  ADMIN_PASSWORD: 'bench-password',
  // The read phase measures the message list, not the 300/min limiter.
  RATE_LIMIT_PER_MINUTE: '1000000',
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
});
const { app, bootstrap } = await buildApp({ config, background: false, logger: false });
if (!bootstrap) throw new Error('bench needs a fresh install (no bootstrap info)');
await app.listen({ port: 0, host: '127.0.0.1' });
await app.inboxes.start();
const stop = () => app.inboxes.stop();
const service = app.inboxes.service;
const organizationId = bootstrap.organizationId;
const inbox = await service.createInbox(organizationId, 'bench');
const port = app.inboxes.smtpPort as number;

const html = (i: number | string) =>
  `<html><body><h1>Confirm your account</h1><p>Message ${i}.</p>` +
  `<a href="https://app.example/confirm?token=${i}&amp;u=bench">Confirm</a>` +
  `<a href="https://app.example/unsubscribe">Unsubscribe</a></body></html>`;

// --- SMTP ingest: 10 senders, each on its own persistent connection, in a worker thread so
// the client side does not share the service's event loop. Messages are composed up front
// (untimed) and sent raw: the figure is the service's acceptance rate, not nodemailer's.
const senderSource = `
  const { parentPort, workerData } = require('node:worker_threads');
  const nodemailer = require(workerData.nodemailer);
  const MailComposer = require(workerData.composer);
  (async () => {
    const { port, to, total, senders } = workerData;
    const raws = await Promise.all(Array.from({ length: total }, (_, i) => new Promise((resolve, reject) =>
      new MailComposer({
        from: 'App <noreply@app.example>', to,
        subject: 'Welcome #' + i + ' — Grüße',
        text: 'Hello ' + i + ', confirm at https://app.example/confirm?token=' + i,
        html: workerData.html.replaceAll('{i}', String(i)),
      }).compile().build((error, message) => (error ? reject(error) : resolve(message))))));
    const transports = Array.from({ length: senders }, () => nodemailer.createTransport({
      host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 }));
    parentPort.postMessage({ ready: true });
    await new Promise((resolve) => parentPort.once('message', resolve));
    const started = performance.now();
    let next = 0;
    await Promise.all(transports.map(async (transport) => {
      for (let i = next++; i < total; i = next++) {
        await transport.sendMail({ envelope: { from: 'noreply@app.example', to: [to] }, raw: raws[i] });
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    for (const transport of transports) transport.close();
    parentPort.postMessage({ seconds });
  })().catch((error) => parentPort.postMessage({ error: String(error) }));
`;
const require = createRequire(import.meta.url);
const worker = new Worker(senderSource, {
  eval: true,
  workerData: {
    port,
    to: inbox.address,
    total,
    senders,
    html: html('{i}'),
    nodemailer: require.resolve('nodemailer'),
    composer: require.resolve('nodemailer/lib/mail-composer'),
  },
});
const seconds = await new Promise<number>((resolve, reject) => {
  worker.on('message', (message: { ready?: boolean; seconds?: number; error?: string }) => {
    if (message.ready) worker.postMessage('go');
    else if (message.error) reject(new Error(message.error));
    else resolve(message.seconds as number);
  });
  worker.on('error', reject);
});
await worker.terminate();
const stored = (await service.listInboxes(organizationId)).find(
  (entry) => entry.id === inbox.id,
)?.messageCount;

// --- Reads with 1000 stored (the inbox holds at most 1000; eviction kept the newest).
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/email-inboxes/${inbox.id}/messages`;
const headers = { 'x-api-key': bootstrap.apiKey };
const latencies: number[] = [];
let count = 0;
// The first requests pay for JIT compilation and a cold page cache; they are reported apart.
const warmup: number[] = [];
for (let i = 0; i < 10; i++) {
  const t0 = performance.now();
  await (await fetch(url, { headers })).json();
  warmup.push(performance.now() - t0);
}
for (let i = 0; i < reads; i++) {
  const t0 = performance.now();
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`GET messages answered ${response.status}`);
  const body = (await response.json()) as { data: unknown[] };
  latencies.push(performance.now() - t0);
  count = body.data.length;
}
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  (latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0).toFixed(1);

const rate = total / seconds;
console.log(`inboxes benchmark (${app.ctx.database.kind})`);
console.log(
  `  SMTP ingest: ${total} messages from ${senders} senders in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} messages/s`,
);
console.log(
  `  target 300/s: ratio ${(rate / 300).toFixed(2)}x; Mailpit reported 70-100/s: ratio ${(rate / 100).toFixed(1)}x-${(rate / 70).toFixed(1)}x`,
);
console.log(`  stored after eviction: ${stored} (limit 1000)`);
console.log(
  `  GET messages with ${count} stored, ${reads} sequential requests after 10 warm-up: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
);
console.log(`  warm-up requests: ${warmup.map((ms) => ms.toFixed(1)).join(', ')} ms`);

await stop();
await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
