/**
 * Import memory benchmark (issue 26, part 4; embedded SQLite, the real app through `inject`).
 *
 *   node bench/import-bomb.ts
 *
 * Builds the zip bomb of the security review (8 deflated entries of 63 MiB of zeros, ~500 KiB
 * on disk), posts it to `POST /v1/tests/import` and samples the process's RSS every 2 ms while
 * the request runs, twice: as built (the central directory declares 63 MiB per entry, refused
 * before inflating), and with the central directory rewritten to declare 30 MiB per entry (under
 * both caps, so entries are inflated until the counted bytes pass a limit). Target: peak RSS ≤ baseline + 64 MiB, with a 400 answer. Exits non-zero if
 * the answer is not 400 or the target is missed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const entryBytes = 63 * 1024 * 1024;
const mib = 1024 * 1024;

function bomb(): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const zeros = Buffer.alloc(mib);
  for (let index = 0; index < 8; index += 1) {
    const source = Readable.from(
      (function* () {
        for (let sent = 0; sent < entryBytes; sent += mib) yield zeros;
      })(),
    );
    zip.addReadStream(source, `tests/${index}-bomb.json`, { size: entryBytes });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-import-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'silent',
  SMTP_PORT: '0',
  RATE_LIMIT_PER_MINUTE: String(1_000_000_000),
});
const { app, bootstrap } = await buildApp({ config, logger: false, background: false });
if (!bootstrap) throw new Error('expected a fresh install');
await app.ready();
const auth = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };

/** Rewrites the uncompressed size of every central-directory record. */
function declare(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  for (let at = out.indexOf(signature); at !== -1; at = out.indexOf(signature, at + 4))
    out.writeUInt32LE(size, at + 24);
  return out;
}

async function measure(label: string, zip: Buffer) {
  const boundary = 'stepdeck-bench-boundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bomb.zip"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    ),
    zip,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  // Warm the route once with the same archive, so lazy loading is not counted.
  await app.inject({
    method: 'POST',
    url: '/v1/tests/import',
    payload,
    headers: {
      ...auth,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
  });
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  const started = performance.now();
  const response = await app.inject({
    method: 'POST',
    url: '/v1/tests/import',
    payload,
    headers: {
      ...auth,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
  });
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const growth = (peak - baseline) / mib;
  console.log(`${label}: archive ${(zip.length / 1024).toFixed(0)} KiB`);
  console.log(`answer: ${response.statusCode} ${response.json().message} in ${elapsed.toFixed(0)} ms`);
  console.log(
    `peak RSS: +${growth.toFixed(1)} MiB over ${(baseline / mib).toFixed(0)} MiB (target ≤ +64 MiB)`,
  );
  if (response.statusCode !== 400 || growth > 64) process.exitCode = 1;
}

try {
  const zip = await bomb();
  await measure('8 x 63 MiB, sizes declared', zip);
  await measure('8 x 63 MiB, central directory declaring 30 MiB each', declare(zip, 30 * mib));
} finally {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
