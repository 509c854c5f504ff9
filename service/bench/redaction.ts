/**
 * Redaction memory benchmark (issue 39): the service process's RSS while a run's 1 GiB trace is
 * redacted, against baselines in the same run.
 *
 *   node bench/redaction.ts [--gib 1]
 *
 * Builds a trace zip of 1 GiB of JSON response bodies (4 entries of 256 MiB, the secret in every
 * 1 KiB line, as a `request` step's body records it), then measures:
 *   - idle: this process's RSS growth over 2 s doing nothing (the noise floor);
 *   - the redaction as runs do it now (`redactRunOutputs`: a child process streams through the
 *     file): peak RSS growth of this process (VmHWM reset, and sampled every 5 ms), the child's
 *     own peak RSS (VmHWM from /proc), wall time and throughput;
 *   - the former in-process redaction (`redactDirectory`, runner/redact.ts) on a 128 MiB trace
 *     (an eighth: it holds each entry whole, twice, in this process).
 * Target: this process's peak RSS growth ≤ +64 MiB with the 1 GiB trace. Exits non-zero if the
 * target is missed or the trace still holds the secret.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { createRedactor, redactDirectory } from '../src/runner/redact.ts';
import { redactRunOutputs } from '../src/runner/redact-run.ts';

const MiB = 1024 * 1024;
const gib = Number(process.argv[process.argv.indexOf('--gib') + 1] || 1) || 1;
const secret = 'Sek rit/9f3a+"Zq&7<x>';
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

async function writeTrace(file: string, entries: number, entryBytes: number): Promise<void> {
  const line = Buffer.from(`{"filler":"${'x'.repeat(960)}","token":${JSON.stringify(secret)}}\n`);
  const block = Buffer.concat(Array.from({ length: Math.floor(MiB / line.length) }, () => line));
  const zip = new yazl.ZipFile();
  zip.addBuffer(
    Buffer.from(`${JSON.stringify({ type: 'request', headers: { 'x-token': secret } })}\n`),
    'trace.network',
  );
  for (let index = 0; index < entries; index += 1)
    zip.addReadStream(
      Readable.from(
        (function* () {
          for (let sent = 0; sent < entryBytes; sent += block.length)
            yield block.subarray(0, entryBytes - sent);
        })(),
      ),
      `resources/${index}.json`,
    );
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(file));
}

const hwm = (pid: number | 'self') =>
  Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** Peak RSS growth of this process while `work` runs, and the peak RSS of the redaction child. */
async function measure(work: () => Promise<unknown>) {
  await new Promise((resolve) => setTimeout(resolve, 200));
  let resettable = true;
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    resettable = false;
  }
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let childPeak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('redact-main.ts'))
          childPeak = Math.max(childPeak, hwm(Number(entry)));
      } catch {}
    }
  }, 5);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss, resettable ? hwm('self') : 0);
  return { growth: (peak - baseline) / MiB, baseline: baseline / MiB, ms, childPeak: childPeak / MiB };
}

/** Whether any entry of the zip still holds the secret (streamed, with an overlap). */
function holdsSecret(file: string): Promise<boolean> {
  const needle = Buffer.from(JSON.stringify(secret).slice(1, -1));
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      let found = false;
      zip.on('end', () => resolve(found));
      zip.on('entry', (entry: yauzl.Entry) =>
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          let carry = Buffer.alloc(0);
          stream.on('data', (chunk: Buffer) => {
            const window = Buffer.concat([carry, chunk]);
            if (window.includes(needle)) found = true;
            carry = window.subarray(Math.max(0, window.length - needle.length));
          });
          stream.on('end', () => zip.readEntry());
        }),
      );
      zip.readEntry();
    }),
  );
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-bench-redaction-'));
try {
  console.log(`load average at the start: ${loadAverage()} on ${os.availableParallelism()} CPUs`);
  const big = path.join(dir, 'big', 'trace.zip');
  fs.mkdirSync(path.dirname(big));
  const entries = 4 * gib;
  await writeTrace(big, entries, 256 * MiB);
  const small = path.join(dir, 'small', 'trace.zip');
  fs.mkdirSync(path.dirname(small));
  await writeTrace(small, 1, 128 * MiB);
  console.log(
    `trace: ${entries} x 256 MiB of JSON bodies (${(fs.statSync(big).size / MiB).toFixed(1)} MiB zipped); baseline trace: 128 MiB`,
  );
  // Warm: loads the modules and fills the child's compile cache.
  const warm = path.join(dir, 'warm.txt');
  fs.writeFileSync(warm, secret);
  await redactRunOutputs({ paths: [warm], secrets: [secret] });

  const idle = await measure(() => new Promise((resolve) => setTimeout(resolve, 2000)));
  const child = await measure(() =>
    redactRunOutputs({
      paths: [big],
      secrets: [secret],
      limits: { entryMaxBytes: 512 * MiB, runMaxBytes: 8 * 1024 * MiB },
      spawnOptions: { cwd: dir },
    }),
  );
  const leaked = await holdsSecret(big);
  const inProcess = await measure(() => redactDirectory(path.dirname(small), createRedactor([secret])));
  const mbps = (mib: number, ms: number) => (mib / (ms / 1000)).toFixed(0);
  console.log(`idle 2 s: RSS +${idle.growth.toFixed(1)} MiB over ${idle.baseline.toFixed(0)} MiB`);
  console.log(
    `redaction in a child, ${1024 * gib} MiB trace: service RSS +${child.growth.toFixed(1)} MiB over ${child.baseline.toFixed(0)} MiB (target ≤ +64 MiB); child peak RSS ${child.childPeak.toFixed(0)} MiB; ${(child.ms / 1000).toFixed(1)} s (${mbps(1024 * gib, child.ms)} MiB/s); secret left: ${leaked ? 'YES' : 'no'}`,
  );
  console.log(
    `former in-process redaction, 128 MiB trace: service RSS +${inProcess.growth.toFixed(1)} MiB over ${inProcess.baseline.toFixed(0)} MiB; ${(inProcess.ms / 1000).toFixed(1)} s (${mbps(128, inProcess.ms)} MiB/s)`,
  );
  console.log(
    `ratio of RSS growth, child (${1024 * gib} MiB) / in-process (128 MiB): ${(child.growth / inProcess.growth).toFixed(3)}`,
  );
  console.log(`load average at the end: ${loadAverage()}`);
  if (child.growth > 64 || leaked) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
