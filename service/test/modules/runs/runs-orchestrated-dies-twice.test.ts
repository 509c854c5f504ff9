import { type ChildProcess, execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helper.ts';
import { type Site, setCap, startSite, waitForStatus } from './helpers.ts';
import { batchesOf, createTests, slowUiTest, triggerBulk } from './orchestrated.ts';
import { WorkerProcesses, workerEnv } from './worker-processes.ts';

// Generous: on a loaded 2-core VM heartbeats (every 500 ms) can lag several seconds.
const staleMs = 8_000;

/** Every live descendant of `pid` (ps), so the test can check that a killed runner's browser is gone. */
function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const row of execFileSync('ps', ['-eo', 'pid=,ppid=,stat=']).toString().split('\n')) {
    const [child, parent, state] = row.trim().split(/\s+/);
    if (!child || state?.startsWith('Z')) continue;
    const list = children.get(Number(parent)) ?? [];
    list.push(Number(child));
    children.set(Number(parent), list);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0)
    for (const child of children.get(queue.shift() as number) ?? []) {
      out.push(child);
      queue.push(child);
    }
  return out;
}

const alive = (pid: number) => {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)])
      .toString()
      .trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false;
  }
};

/**
 * A batch's second runner fault: a batch whose runner is judged dead is put back once; when the
 * runner that took it dies too, the run fails with a runner error naming the batch's tests,
 * the other batches end, and the tests never ran twice at the same time.
 */
describe('an orchestrated batch whose runner dies twice (PostgreSQL, three workers)', () => {
  let t: TestApp;
  let site: Site;
  const workers = new WorkerProcesses(() =>
    workerEnv(t, { RUNNER_SLOTS: '1', RUNNER_STALE_HEARTBEAT_MS: String(staleMs) }),
  );
  const startWorker = () => workers.start();
  const workerOfSlot = (slot: string | null) => workers.ofSlot(slot) as ChildProcess;
  const kill = async (worker: ChildProcess) => {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    site = await startSite();
    t = await createTestApp({ database: 'postgres', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    for (let index = 0; index < 3; index += 1) await startWorker();
    // Three service processes starting at once on a loaded 2-core VM.
  }, 300_000);
  afterAll(async () => {
    await workers.stop();
    await t?.close();
    await site?.close();
  });

  it('puts the batch back once, then fails the run naming its tests; the other batch ends', async () => {
    // Four tests that each stay on the page long enough for two runner deaths (two batches).
    const names = ['twice 0', 'twice 1', 'twice 2', 'twice 3'];
    const ids = await createTests(
      t,
      names.map((name) => ({
        ...slowUiTest(site, name, 100),
        steps: [
          ...slowUiTest(site, name, 100).steps,
          { name: 'pause', action: { name: 'wait', ms: 150_000 } },
        ],
      })),
    );
    await setCap(t, 2);
    const runId = await triggerBulk(t, ids, { timeout: 300_000 });
    const hits = (id: string) =>
      site.hits.get(`/slow?ms=100&t=${encodeURIComponent(names[ids.indexOf(id)] ?? '')}`) ?? 0;

    /** Waits until batch 1 is claimed (attempt `attempt`) and one of its tests called the site `times`. */
    const claimedAndStarted = async (attempt: number, times: number) => {
      const deadline = Date.now() + 180_000;
      for (;;) {
        const batch = (await batchesOf(t, runId)).find((row) => row.kind === 'tests' && row.position === 1);
        const testIds = batch ? (JSON.parse(batch.testIds) as string[]) : [];
        if (
          batch?.status === 'claimed' &&
          batch.attempts === attempt &&
          testIds.some((id) => hits(id) >= times)
        )
          return batch;
        if (Date.now() > deadline)
          throw new Error(`batch 1 not started (attempt ${attempt}): ${JSON.stringify(batch)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    const first = await claimedAndStarted(1, 1);
    const firstWorker = workerOfSlot(first.slot);
    const firstTree = descendantsOf(firstWorker.pid as number);
    expect(firstTree.length).toBeGreaterThan(0);
    await kill(firstWorker);

    // Put back once and taken by another slot; the dead runner's processes were gone by then.
    const second = await claimedAndStarted(2, 2);
    const secondWorker = workerOfSlot(second.slot);
    expect(secondWorker).toBeDefined();
    expect(secondWorker.pid).not.toBe(firstWorker.pid);
    expect(firstTree.filter(alive)).toEqual([]);
    await kill(secondWorker);

    const run = await waitForStatus(t, runId, ['completed', 'failed', 'cancelled'], 180_000);
    expect(run.status).toBe('failed');
    const victimNames = (JSON.parse(second.testIds) as string[]).map((id) => names[ids.indexOf(id)]);
    const runnerError = String(
      (run.report as { runTypeInfo: { runnerError?: string } }).runTypeInfo.runnerError,
    );
    expect(runnerError).toBe(
      `Runner failed: the runner executing ${victimNames.join(', ')} stopped before it finished, twice (the batch was put back once)`,
    );
    // The other batch, still running on the surviving worker, ends too; nothing is merged.
    const deadline = Date.now() + 60_000;
    let batches = await batchesOf(t, runId);
    while (Date.now() < deadline && batches.some((row) => row.status === 'claimed')) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      batches = await batchesOf(t, runId);
    }
    const byPosition = new Map(batches.map((row) => [row.position, row]));
    expect(byPosition.get(1)).toMatchObject({ status: 'cancelled', attempts: 2 });
    expect(byPosition.get(0)?.status).toBe('cancelled');
    expect(batches.find((row) => row.kind === 'merge')?.status).not.toBe('done');
    // The victim's tests ran once per attempt, never more (one browser at a time).
    for (const id of JSON.parse(second.testIds) as string[]) expect(hits(id)).toBeLessThanOrEqual(2);
  }, 600_000);
});
