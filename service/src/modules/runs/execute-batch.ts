import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../context.ts';
import { warmMergeServer } from '../../runner/merge.ts';
import { uploadTestArtifacts, withCapError } from './artifacts.ts';
import {
  type BatchResult,
  batchTestIds,
  batchWorkKey,
  findBatch,
  unitStatesOf,
} from './batches-repository.ts';
import { RunCancelledError } from './errors.ts';
import { mergeRun } from './merge-run.ts';
import { executeLoaded, loadRunProject } from './prepare.ts';
import { recordRunProcess, releaseRunProcess } from './processes-repository.ts';
import { type ClaimedUnit, claimMergeUnit } from './queue/claim-batch-repository.ts';
import { endUnit, failRun } from './queue/end-repository.ts';
import { beatRun, beatUnit, heartbeatMs } from './queue/heartbeat-repository.ts';
import { runLifecycle } from './queue/lifecycle.ts';
import { findRun } from './repository.ts';
import { runtimeOf } from './runtime.ts';
import { recordVisualChecks } from './visual-checks.ts';
import { acquireWorkDir } from './work-dirs.ts';

/** The key of a unit in this process's aborts and in `runProcesses`. */
export const unitKey = (unit: { runId: string; position: number }) => `${unit.runId}#${unit.position}`;

/**
 * Executes one claimed unit of an orchestrated run: a batch of tests (blob report, per-test
 * artifacts, results kept for the merge), or the merge itself. Heartbeats keep the claim;
 * a cancelled run, or a claim taken back (this runner was judged dead), stops it.
 */
export async function executeUnit(ctx: AppContext, unit: ClaimedUnit, runnerId: string): Promise<void> {
  const runtime = runtimeOf(ctx);
  const key = unitKey(unit);
  const controller = new AbortController();
  runtime.aborts.set(key, controller);
  // The unit the heartbeat holds: the batch, then the merge when this slot takes it.
  let position = unit.position;
  let beating: Promise<void> | undefined;
  const beat = setInterval(() => {
    if (beating) return;
    beating = (async () => {
      const run = await findRun(ctx.db, unit.runId);
      if (!run || !runLifecycle.allows('heartbeat', run.status)) {
        controller.abort(new RunCancelledError());
        return;
      }
      if (!(await beatUnit(ctx.db, { runId: unit.runId, position }, runnerId)))
        controller.abort(new RunCancelledError());
      await beatRun(ctx.db, unit.runId);
    })()
      .catch(() => {})
      .finally(() => {
        beating = undefined;
      });
  }, heartbeatMs);
  beat.unref();
  try {
    if (unit.kind === 'merge') {
      await mergeRun(ctx, unit, runnerId);
      return;
    }
    const last = await executeBatch(ctx, unit, runnerId, controller.signal);
    if (last) {
      // The slot that ends the last batch merges at once (the merge unit is its to take).
      const merge = { runId: unit.runId, position: last, kind: 'merge' as const };
      position = last;
      if (await claimMergeUnit(ctx.db, merge, runnerId, ctx.clock.now().toISOString())) {
        runtime.aborts.set(unitKey(merge), controller);
        await mergeRun(ctx, merge, runnerId).finally(() => runtime.aborts.delete(unitKey(merge)));
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    const message = error instanceof Error ? error.message : String(error);
    await failRun(ctx, unit.runId, `Runner failed: ${message}`);
  } finally {
    clearInterval(beat);
    await beating;
    runtime.aborts.delete(key);
  }
}

/** Runs one batch; returns the merge unit's position when it was the last batch to end. */
async function executeBatch(
  ctx: AppContext,
  unit: ClaimedUnit,
  runnerId: string,
  signal: AbortSignal,
): Promise<number | undefined> {
  const run = await findRun(ctx.db, unit.runId);
  const batch = await findBatch(ctx.db, unit.runId, unit.position);
  if (!run || !batch) return undefined;
  const testIds = batchTestIds(batch);
  // Whichever slot ends the last batch merges: each process working on batches has the merge
  // process loaded by then (it loads while the tests run, off the run's critical path).
  warmMergeServer();
  const work = await acquireWorkDir('stepdeck-batch');
  const workDir = work.path;
  const key = unitKey(unit);
  try {
    await recordRunProcess(ctx, key, runnerId, workDir);
    const loaded = await loadRunProject(ctx, run, testIds);
    const blobDir = path.join(workDir, 'blob');
    const { result } = await executeLoaded(ctx, run, loaded, workDir, signal, { blobDir, processKey: key });
    const completedAt = ctx.clock.now().toISOString();
    if (signal.aborted || result.cancelled) {
      await endUnit(ctx.db, { ...unit, runnerId }, 'cancelled', completedAt);
      return undefined;
    }
    const capError = await uploadTestArtifacts(ctx, run, result.tests);
    await recordVisualChecks(ctx, run, loaded, result.tests);
    const blobs = fs.existsSync(blobDir) ? await fsp.readdir(blobDir) : [];
    for (const file of blobs.filter((name) => name.endsWith('.zip')))
      await ctx.blobs.put(
        batchWorkKey(run.id, `blob-${unit.position}.zip`),
        fs.createReadStream(path.join(blobDir, file)),
      );
    await ctx.blobs.put(batchWorkKey(run.id, `log-${unit.position}.log`), Buffer.from(result.log ?? ''));
    const ended = withCapError(result, capError);
    const kept: BatchResult = {
      status: ended.status,
      runnerError: ended.runnerError ?? null,
      durationMs: Math.round(result.durationMs),
      tests: result.tests.map((test) => ({ ...test, artifacts: [] })),
    };
    if (!(await endUnit(ctx.db, { ...unit, runnerId }, 'done', completedAt, kept))) return undefined;
    const rest = await unitStatesOf(ctx.db, run.id);
    if (rest.some((row) => row.kind === 'tests' && row.status !== 'done')) return undefined;
    return rest.find((row) => row.kind === 'merge')?.position;
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true }).catch(() => {});
    work.release();
    await releaseRunProcess(ctx.db, key).catch(() => {});
  }
}
