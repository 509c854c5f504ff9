import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { resolveChromium } from '../../../src/runner/browser.ts';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';
import { peakGrowth } from '../../peak-rss.ts';
import { unzip } from './artifacts.ts';
import { createTest, waitForStatus } from './helpers.ts';

/**
 * A run's outputs are redacted by a streaming child process (never the service) and
 * stored within ARTIFACT_ENTRY_MAX_BYTES, RUN_ARTIFACTS_MAX_BYTES and ORG_ARTIFACTS_MAX_BYTES.
 * The process measured is this test process: it hosts the service (createTestApp, in process).
 */

const MiB = 1024 * 1024;
const SECRET = 'Sek rit/9f3a+"Zq&7<x>';

interface Bodies {
  url: string;
  close(): Promise<void>;
}

/**
 * `/json?bytes=N&i=K`: a JSON body of N bytes that holds the secret every 64 KiB (from one
 * buffer allocated up front: serving it costs this process nothing per request);
 * `/random?bytes=N`: N bytes of base64 noise (incompressible: a trace keeps its size).
 */
async function startBodies(): Promise<Bodies> {
  const line = `{"filler":"${'x'.repeat(1000)}","token":${JSON.stringify(SECRET)}}\n`;
  const block = Buffer.from(line.repeat(Math.ceil((64 * 1024) / line.length)));
  const json = Buffer.alloc(64 * MiB);
  for (let at = 0; at < json.length; at += block.length) block.copy(json, at);
  const noise = Buffer.from(randomBytes(3 * MiB).toString('base64'));
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const bytes = Number(url.searchParams.get('bytes') ?? 1024);
    if (url.pathname === '/random') {
      response.setHeader('content-type', 'text/plain');
      response.end(noise.subarray(0, bytes));
      return;
    }
    response.setHeader('content-type', 'application/json');
    const head = Buffer.from(`{"i":${Number(url.searchParams.get('i') ?? 0)},"lines":[\n`);
    response.write(head);
    response.end(json.subarray(0, Math.min(json.length, bytes) - head.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The run's runner error, as the report carries it. */
const runnerErrorOf = (run: Record<string, unknown>) =>
  (run.report as { runTypeInfo?: { runnerError?: string | null } } | null)?.runTypeInfo?.runnerError ?? null;

async function addSecret(t: TestApp) {
  const response = await consoleCall(t.app, await t.consoleCookie(), {
    method: 'POST',
    url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
    payload: { name: 'TOKEN', value: SECRET },
  });
  expect(response.statusCode).toBe(201);
}

async function run(t: TestApp, test: Record<string, unknown>, config: Record<string, unknown>) {
  const testId = await createTest(t, { metadata: { type: 'api' }, ...test });
  const response = await t.api({
    method: 'POST',
    url: `/v1/tests/${testId}/remote-run`,
    payload: { config },
  });
  expect(response.statusCode).toBe(200);
  return response.json().data.runId as string;
}

/** Every file of the file blob store (name → size), `.part` files included. */
function blobFiles(t: TestApp): Map<string, number> {
  const root = path.join(t.dataDir, 'blobs');
  const out = new Map<string, number>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      out.set(path.relative(root, file), fs.statSync(file).size);
    }
  return out;
}

async function storedOf(t: TestApp, runId: string): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('runArtifacts')
    .select('bytes')
    .where('runId', '=', runId)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** Names and uncompressed sizes of a stored zip's entries (its central directory only). */
function entriesOf(file: string): Promise<Map<string, number>> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: false }, (error, zip) => {
      if (error || !zip) return reject(error);
      const out = new Map<string, number>();
      zip.on('entry', (entry: yauzl.Entry) => out.set(entry.fileName, entry.uncompressedSize));
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
    }),
  );
}

/**
 * Opens a trace in Playwright's own trace viewer (`playwright show-trace`, served on loopback)
 * in Chromium; returns the titles of its action list.
 */
async function traceViewerActions(trace: string): Promise<string[]> {
  const require = createRequire(import.meta.url);
  const cli = path.join(path.dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
  const viewer: ChildProcess = spawn(
    process.execPath,
    [cli, 'show-trace', '--host', '127.0.0.1', '--port', '0', trace],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      viewer.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Listening on (http:\/\/\S+)/.exec(output);
        if (match?.[1]) resolve(match[1]);
      });
      viewer.once('exit', (code) => reject(new Error(`show-trace exited ${code}: ${output}`)));
    });
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    const browser = await chromium.launch({
      executablePath: resolved.browser.executablePath,
      args: ['--no-sandbox'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(url);
      const titles = page.locator('.action-title');
      await titles.first().waitFor({ timeout: 30_000 });
      return await titles.allTextContents();
    } finally {
      await browser.close();
    }
  } finally {
    viewer.kill('SIGKILL');
  }
}

describe('run artifacts within caps, redacted outside the service', () => {
  let bodies: Bodies;
  beforeAll(async () => {
    bodies = await startBodies();
  });
  afterAll(async () => {
    await bodies?.close();
  });

  describe('about 1 GiB of response bodies', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        background: true,
        env: {
          RATE_LIMIT_PER_MINUTE: '100000',
          ARTIFACT_ENTRY_MAX_BYTES: String(128 * MiB),
          RUN_ARTIFACTS_MAX_BYTES: String(16 * 1024 * MiB),
          ORG_ARTIFACTS_MAX_BYTES: String(64 * 1024 * MiB),
        },
      });
      await addSecret(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    it("leaves the service process's RSS within +64 MiB, every body redacted", async () => {
      const calls = 16;
      const test = (label: string, bytes: number) => ({
        name: label,
        steps: Array.from({ length: calls }, (_, index) => ({
          name: `call ${index}`,
          action: {
            name: 'request',
            method: 'GET',
            url: `${bodies.url}/json?bytes=${bytes}&i=${index}`,
            headers: { 'x-token': '{{secrets.TOKEN}}' },
          },
        })),
      });
      const execute = async (label: string, bytes: number, trace: 'on' | 'off') => {
        const runId = await run(t, test(label, bytes), {
          timeout: 600_000,
          use: { trace, screenshot: 'off' },
        });
        return { runId, run: await waitForStatus(t, runId, ['completed', 'failed'], 600_000) };
      };
      // Warm-up (the first run loads the runner's modules), then the same 1 GiB of traffic
      // without a trace: the bodies pass through this process (the runner's egress proxy) and
      // raise its allocator's high-water mark; what the traced run adds is the trace's cost.
      await execute('warm-up', MiB, 'on');
      const traffic = await peakGrowth(() => execute('large bodies, no trace', 64 * MiB, 'off'));
      expect(traffic.value.run.status).toBe('completed');
      const measured = await peakGrowth(() => execute('large bodies', 64 * MiB, 'on'));
      const { runId } = measured.value;
      console.log(
        `service process RSS: +${measured.growthMiB.toFixed(1)} MiB over ${measured.baselineMiB.toFixed(0)} MiB during a run with ${calls} x 64 MiB bodies and trace on (the same run without a trace: +${traffic.growthMiB.toFixed(1)} MiB)`,
      );
      expect(runnerErrorOf(measured.value.run)).toBeNull();
      expect(measured.value.run.status).toBe('completed');
      expect(measured.growthMiB).toBeLessThan(64);
      // The stored trace holds every body, each with the secret replaced.
      const trace = path.join(t.dataDir, 'blobs', 'runs', runId, 'tests', 'large bodies', 'trace.zip');
      const entries = await entriesOf(trace);
      const resources = [...entries].filter(
        ([name, size]) => name.startsWith('resources/') && size > 60 * MiB,
      );
      expect(resources).toHaveLength(calls);
      // The first 256 KiB of one body (streamed: the test process holds no body whole).
      const first = await new Promise<Buffer>((resolve, reject) =>
        yauzl.open(trace, { lazyEntries: true }, (error, zip) => {
          if (error || !zip) return reject(error);
          zip.on('entry', (entry: yauzl.Entry) => {
            if (entry.fileName !== resources[0]?.[0]) return zip.readEntry();
            zip.openReadStream(entry, (streamError, stream) => {
              if (streamError || !stream) return reject(streamError);
              const chunks: Buffer[] = [];
              let length = 0;
              stream.on('data', (chunk: Buffer) => {
                chunks.push(chunk);
                length += chunk.length;
                if (length < 256 * 1024) return;
                stream.destroy();
                zip.close();
                resolve(Buffer.concat(chunks));
              });
              stream.on('error', () => {});
            });
          });
          zip.readEntry();
        }),
      );
      expect(first.toString()).toContain('"token":"***"');
      expect(first.toString()).not.toContain(JSON.stringify(SECRET).slice(1, -1));
      expect(await storedOf(t, runId)).toBeGreaterThan(0);
    }, 900_000);
  });

  describe('caps', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        background: true,
        env: {
          RATE_LIMIT_PER_MINUTE: '100000',
          ARTIFACT_ENTRY_MAX_BYTES: String(MiB),
          RUN_ARTIFACTS_MAX_BYTES: String(8 * MiB),
          ORG_ARTIFACTS_MAX_BYTES: String(24 * MiB),
        },
      });
      await addSecret(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('leaves a resource past ARTIFACT_ENTRY_MAX_BYTES out of the trace, which the trace viewer still opens', async () => {
      const runId = await run(
        t,
        {
          name: 'big resource',
          steps: [
            {
              name: 'big call',
              action: { name: 'request', method: 'GET', url: `${bodies.url}/random?bytes=${2 * MiB}` },
            },
            {
              name: 'small call',
              action: { name: 'request', method: 'GET', url: `${bodies.url}/random?bytes=1000` },
            },
            { name: 'ok', action: { name: 'assertStatus', value: 200 } },
          ],
        },
        { use: { trace: 'on', screenshot: 'off' } },
      );
      const ended = await waitForStatus(t, runId, ['completed', 'failed']);
      // Only the run's and the organization's caps fail a run.
      expect(runnerErrorOf(ended)).toBeNull();
      expect(ended.status).toBe('completed');
      const trace = path.join(t.dataDir, 'blobs', 'runs', runId, 'tests', 'big resource', 'trace.zip');
      const entries = new Map((await unzip(fs.readFileSync(trace))).map((entry) => [entry.name, entry.data]));
      expect([...entries.values()].some((data) => data.length >= 2 * MiB)).toBe(false);
      expect(String(entries.get('stepdeck-dropped.txt'))).toMatch(
        /^Stepdeck left out of this archive what passed its cap \(ARTIFACT_ENTRY_MAX_BYTES\):\nresources\/\w+\.\w+: 2 MiB, larger than ARTIFACT_ENTRY_MAX_BYTES \(1 MiB\): left out\n$/,
      );
      for (const [name, data] of entries)
        if (/\.(trace|network)$/.test(name))
          for (const line of data.toString('utf8').split('\n').filter(Boolean))
            expect(() => JSON.parse(line)).not.toThrow();
      const log = String(await t.ctx.blobs.get(`runs/${runId}/test-run.log`));
      expect(log).toMatch(
        /left out test-results\/.+\/trace\.zip:resources\/\w+\.\w+ \(2 MiB\): larger than ARTIFACT_ENTRY_MAX_BYTES \(1 MiB\)/,
      );
      const actions = await traceViewerActions(trace);
      expect(actions.join('\n')).toContain('big call');
      expect(actions.join('\n')).toContain('small call');
    }, 180_000);

    it('ends a run past RUN_ARTIFACTS_MAX_BYTES failed, naming it, with what fits stored whole and no partial blob', async () => {
      const runId = await run(
        t,
        {
          name: 'repeated',
          steps: [
            {
              name: 'call',
              action: { name: 'request', method: 'GET', url: `${bodies.url}/random?bytes=${900 * 1024}` },
            },
            { name: 'ok', action: { name: 'assertStatus', value: 200 } },
          ],
        },
        { repeatEach: 5, use: { trace: 'on', screenshot: 'off' } },
      );
      const ended = await waitForStatus(t, runId, ['completed', 'failed']);
      expect(ended.status).toBe('failed');
      expect(String(runnerErrorOf(ended))).toMatch(
        /^the run's artifacts passed RUN_ARTIFACTS_MAX_BYTES \(8 MiB\): (kept|stored) [\d.]+ [KM]iB, left out \d+ file\(s\): /,
      );
      // The tests' own results are kept: they passed.
      expect(ended.stats).toMatchObject({ passed: 5, failed: 0, total: 5 });
      const files = blobFiles(t);
      expect([...files.keys()].filter((name) => name.endsWith('.part'))).toEqual([]);
      const own = [...files].filter(([name]) => name.startsWith(`runs/${runId}/`));
      const total = own.reduce((sum, [, size]) => sum + size, 0);
      expect(total).toBeLessThanOrEqual(8 * MiB);
      expect(await storedOf(t, runId)).toBe(total);
      // What was stored is whole: every zip opens, the JSON report parses, the notes say why.
      for (const [name] of own) {
        const data = fs.readFileSync(path.join(t.dataDir, 'blobs', name));
        if (name.endsWith('.zip')) await expect(unzip(data)).resolves.toBeDefined();
        if (name.endsWith('.json')) expect(() => JSON.parse(data.toString())).not.toThrow();
      }
      // A note replaces each file left out (in the report's archive or beside the test's files).
      for (const [name] of own.filter(([file]) => file.endsWith('.dropped.txt')))
        expect(String(fs.readFileSync(path.join(t.dataDir, 'blobs', name)))).toMatch(
          /^Stepdeck dropped .+: the run's artifacts passed RUN_ARTIFACTS_MAX_BYTES \(8 MiB\)\.\n$/,
        );
      const log = String(await t.ctx.blobs.get(`runs/${runId}/test-run.log`));
      expect(log).toContain('the artifacts passed RUN_ARTIFACTS_MAX_BYTES (8 MiB)');
    }, 180_000);

    it("ends the run that passes ORG_ARTIFACTS_MAX_BYTES failed, naming it, within the organization's cap", async () => {
      const ended: Array<{ runId: string; status: string; runnerError: unknown }> = [];
      for (let index = 0; index < 12 && !ended.some((entry) => entry.status === 'failed'); index += 1) {
        const runId = await run(
          t,
          {
            name: `org ${index}`,
            steps: [
              {
                name: 'call',
                action: { name: 'request', method: 'GET', url: `${bodies.url}/random?bytes=${900 * 1024}` },
              },
              { name: 'ok', action: { name: 'assertStatus', value: 200 } },
            ],
          },
          { use: { trace: 'on', screenshot: 'off' } },
        );
        const row = await waitForStatus(t, runId, ['completed', 'failed']);
        ended.push({ runId, status: row.status, runnerError: runnerErrorOf(row) });
      }
      const failed = ended.find((entry) => entry.status === 'failed');
      expect(failed, JSON.stringify(ended)).toBeDefined();
      expect(String(failed?.runnerError)).toMatch(
        /^the organization's stored run artifacts passed ORG_ARTIFACTS_MAX_BYTES \(24 MiB\): (kept|stored) /,
      );
      expect(ended.slice(0, -1).every((entry) => entry.status === 'completed')).toBe(true);
      // Every run of the organization counted; what the blob store holds is what was counted.
      const files = blobFiles(t);
      expect([...files.keys()].filter((name) => name.endsWith('.part'))).toEqual([]);
      const stored = [...files]
        .filter(([name]) => name.startsWith('runs/'))
        .reduce((sum, [, size]) => sum + size, 0);
      const counted = await t.ctx.db
        .selectFrom('runArtifacts')
        .select((eb) => eb.fn.sum<number>('bytes').as('bytes'))
        .executeTakeFirst();
      expect(Number(counted?.bytes)).toBe(stored);
      // Past the cap only by bundles (counted, never left out: a run needs its project).
      const bundles = [...files].filter(([name]) => name.endsWith('/bundle.tgz'));
      expect(stored - bundles.reduce((sum, [, size]) => sum + size, 0)).toBeLessThanOrEqual(24 * MiB);
    }, 300_000);
  });
});
