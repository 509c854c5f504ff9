import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresDatabase,
  createTestApp,
  type DatabaseKind,
  databaseKinds,
  type TestApp,
} from '../../helper.ts';
import { createTest, updateTest } from './helpers.ts';

/**
 * Tests stored before MAX_STEPS_PER_TEST and MAX_STEP_TREE_BYTES existed (written here by an
 * install with higher limits, then read by one with the defaults or lower ones): they still read,
 * without holding the event loop, and can be edited as long as an edit does not grow them.
 */

/** 45000 steps, some 14 MB of JSON read back (the review's test had 60 000, 16.5 MiB). */
const legacySteps = 45_000;
const step = (i: number) => ({
  name: `step ${i}`,
  action: { name: 'goto', url: `https://example.com/${i}` },
});

/**
 * Reads `url` from a child process that meanwhile pings `/healthz` back to back (the clients' own
 * work, 19 MB to receive, stays out of this process), and watches this process's event loop: a
 * 5 ms timer notes each gap between its ticks with the CPU time the process spent in it. A gap
 * with as much CPU is the loop held by one task; a long gap with little CPU is this 2-core machine
 * busy with other work (a loaded CI), which slows `/healthz` without the service holding it.
 */
async function readWhilePinging(base: string, url: string, headers: Record<string, string>) {
  const client = `
    const [base, url, headers] = JSON.parse(process.argv[1]);
    (async () => {
      let done = false;
      let worst = 0;
      let pings = 0;
      const pinger = (async () => {
        while (!done) {
          const start = performance.now();
          await (await fetch(base + '/healthz')).arrayBuffer();
          worst = Math.max(worst, performance.now() - start);
          pings += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const response = await fetch(base + url, { headers });
      const body = Buffer.from(await response.arrayBuffer());
      done = true;
      await pinger;
      const head = body.subarray(0, 120).toString();
      process.stdout.write(JSON.stringify({ status: response.status, bytes: body.length, worst, pings, head }));
    })();
  `;
  let longestTask = 0;
  let last = { wall: performance.now(), cpu: process.cpuUsage() };
  const timer = setInterval(() => {
    const now = { wall: performance.now(), cpu: process.cpuUsage() };
    const cpu = (now.cpu.user + now.cpu.system - last.cpu.user - last.cpu.system) / 1000;
    longestTask = Math.max(longestTask, Math.min(now.wall - last.wall, cpu));
    last = now;
  }, 5);
  try {
    const child = spawn(process.execPath, ['-e', client, JSON.stringify([base, url, headers])], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise((resolve) => child.once('close', resolve));
    const read = JSON.parse(out) as {
      status: number;
      bytes: number;
      worst: number;
      pings: number;
      head: string;
    };
    return { ...read, longestTask };
  } finally {
    clearInterval(timer);
  }
}

describe.each(databaseKinds)('step trees stored before the limits on %s', (database: DatabaseKind) => {
  let t: TestApp;
  let dataDir: string;
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  const ids = { legacy: '', small: '' };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-large-'));
    if (database === 'postgres') ({ url: databaseUrl, drop } = await createPostgresDatabase());
    const before = await createTestApp({
      database,
      dataDir,
      ...(databaseUrl ? { databaseUrl } : {}),
      env: { MAX_STEPS_PER_TEST: '100000', MAX_STEP_TREE_BYTES: String(64 * 1024 * 1024) },
    });
    ids.legacy = (
      await createTest(before, {
        name: 'legacy',
        steps: Array.from({ length: legacySteps }, (_, i) => step(i)),
      })
    ).id;
    ids.small = (
      await createTest(before, {
        name: 'legacy small',
        steps: [
          { name: 'g', action: { name: 'group' }, children: [step(1), step(2), step(3)] },
          step(4),
          step(5),
          step(6),
        ],
      })
    ).id;
    await before.close();
    t = await createTestApp({
      database,
      dataDir,
      ...(databaseUrl ? { databaseUrl } : {}),
      env: { MAX_STEPS_PER_TEST: '5' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads a 45000-step test without holding the event loop (/healthz answers meanwhile)', async () => {
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    for (const url of [`/v1/tests/${ids.legacy}`, `/v1/tests/${ids.legacy}/steps`]) {
      const read = await readWhilePinging(base, url, t.headers);
      const seen = `${url}: ${JSON.stringify(read)}`;
      expect(read.status, seen).toBe(200);
      expect(read.bytes).toBeGreaterThan(13_000_000);
      // Measured on 2 cores. Before: one task doing it all (read, serialize, write the tree), of
      // 0.8 s (PostgreSQL) to 2 s (SQLite) for 30000 steps, 4-6 s for 60000, /healthz as late.
      // Now: tasks of at most 0.1-0.3 s (slices of 500-5000 steps), /healthz within 0.3-0.8 s on
      // an idle machine, 1-2.2 s under a load of 10-20 from other processes (little CPU in that
      // gap: the machine was busy, not the service).
      expect(read.longestTask, seen).toBeLessThan(600);
      expect(read.worst, seen).toBeLessThan(3000);
      expect(read.pings, seen).toBeGreaterThan(5);
    }
    const detail = await t.api({ method: 'GET', url: `/v1/tests/${ids.legacy}` });
    const { test, steps } = detail.json();
    expect(test.stepsCount).toBe(legacySteps);
    expect(steps).toHaveLength(legacySteps);
    expect(steps[legacySteps - 1]).toMatchObject({ name: `step ${legacySteps - 1}`, order: legacySteps - 1 });
  }, 120_000);

  it('edits a test past the limit that does not grow it, refuses one that does, and no copy of it', async () => {
    const stepsOf = async () =>
      (await t.api({ method: 'GET', url: `/v1/tests/${ids.small}/steps` })).json().data.steps as Array<{
        name: string;
      }>;
    expect(await stepsOf()).toHaveLength(4);
    const grown = await updateTest(t, ids.small, {
      steps: [step(1), step(2), step(3), step(4), step(5), step(6), step(7), step(8)],
    });
    expect(grown.statusCode).toBe(400);
    expect(grown.json()).toEqual({
      message: 'A test has at most 5 steps (MAX_STEPS_PER_TEST); this one would have 8',
      code: 'TOO_MANY_STEPS',
    });
    const shrunk = await updateTest(t, ids.small, {
      steps: [step(1), step(2), step(3), step(4), step(5), step(6)],
    });
    expect(shrunk.statusCode).toBe(200);
    expect((await stepsOf()).map((item) => item.name)).toEqual([
      'step 1',
      'step 2',
      'step 3',
      'step 4',
      'step 5',
      'step 6',
    ]);
    const copy = await t.api({ method: 'POST', url: `/v1/tests/${ids.small}/duplicate`, payload: {} });
    expect(copy.statusCode).toBe(400);
    expect(copy.json()).toEqual({
      message: 'A test has at most 5 steps (MAX_STEPS_PER_TEST); the copy of "legacy small" would have 6',
      code: 'TOO_MANY_STEPS',
    });
    const list = await t.api({ method: 'GET', url: '/v1/tests?name=legacy%20small' });
    expect(list.json().children).toHaveLength(1);
  });
});
