import fsp from 'node:fs/promises';
import type { AppContext } from '../../context.ts';
import { uploadArtifacts, withCapError } from './artifacts.ts';
import { RunCancelledError } from './errors.ts';
import { executeUnit } from './execute-batch.ts';
import { estimateFromSteps, planRun, recordedDurations } from './planner.ts';
import { executeLoaded, type LoadedProject, loadRunProject, storeBundle } from './prepare.ts';
import { recordRunProcess, releaseRunProcess } from './processes-repository.ts';
import { splitIntoBatches } from './queue/claim-batch-repository.ts';
import { failRun, finishRun } from './queue/end-repository.ts';
import { beatHeldRun, heartbeatMs } from './queue/heartbeat-repository.ts';
import { startQueuedRun } from './queue/start-repository.ts';
import { findRun, type RunRow, recordRunPlan, runStatusOf } from './repository.ts';
import { runtimeOf } from './runtime.ts';
import { recordVisualChecks } from './visual-checks.ts';
import { acquireWorkDir, type WorkDir } from './work-dirs.ts';

export interface SlotInfo {
  runnerId: string;
  /** `runnerId#n`: the slot of this process that holds the run. */
  slot: string;
  /** How many slots the run may use at once (the org's cap, and this process's slots when embedded). */
  parallels: number;
}

/**
 * Executes one claimed (`queued`) run: plans it (planner.ts), then either executes it unsplit
 * as one `playwright test` (a small run, or one that can use a single slot) or writes its
 * batches, takes the first and lets free slots anywhere take the others. A cancel at any
 * point stops it.
 */
export async function executeRun(ctx: AppContext, runId: string, holder: SlotInfo): Promise<void> {
  const { runnerId } = holder;
  const runtime = runtimeOf(ctx);
  const controller = new AbortController();
  runtime.aborts.set(runId, controller);
  let cancelled = false;
  // One heartbeat query at a time; the last one is awaited before the run lets go of the
  // database, so closing the app never leaves a query in flight.
  let beating: Promise<void> | undefined;
  const beat = setInterval(() => {
    if (beating) return;
    beating = (async () => {
      const row = await runStatusOf(ctx.db, runId);
      if (!row || row.status === 'cancelled') {
        cancelled = true;
        controller.abort(new RunCancelledError());
        return;
      }
      await beatHeldRun(ctx.db, runId, runnerId);
    })()
      .catch(() => {})
      .finally(() => {
        beating = undefined;
      });
  }, heartbeatMs);
  beat.unref();
  controller.signal.addEventListener('abort', () => {
    if (controller.signal.reason instanceof RunCancelledError) cancelled = true;
  });

  let work: WorkDir | undefined;
  let split = false;
  try {
    if (!(await startQueuedRun(ctx.db, runId, ctx.clock.now().toISOString()))) return;
    const run = await findRun(ctx.db, runId);
    if (!run) return;
    work = await acquireWorkDir('stepdeck-run');
    await recordRunProcess(ctx, runId, runnerId, work.path);
    const loaded = await loadRunProject(ctx, run);
    split = await splitRun(ctx, run, loaded, holder, work.path);
    if (!split) await executeUnsplit(ctx, run, loaded, work.path, controller.signal);
  } catch (error) {
    if (cancelled) return;
    const message = error instanceof Error ? error.message : String(error);
    await failRun(ctx, runId, `Runner failed: ${message}`);
  } finally {
    clearInterval(beat);
    await beating;
    runtime.aborts.delete(runId);
    if (work) {
      await fsp.rm(work.path, { recursive: true, force: true }).catch(() => {});
      work.release();
      await releaseRunProcess(ctx.db, runId).catch((error: unknown) =>
        ctx.log.warn({ err: error, runId }, 'could not release the run process record'),
      );
    }
  }
  // The first batch runs in this slot, now that the run's own record is let go.
  if (split && !cancelled && !controller.signal.aborted)
    await executeUnit(ctx, { runId, position: 0, kind: 'tests' }, runnerId);
}

/** A run executed as one `playwright test`, in this slot alone (no batches). */
async function executeUnsplit(
  ctx: AppContext,
  run: RunRow,
  loaded: LoadedProject,
  workDir: string,
  signal: AbortSignal,
): Promise<void> {
  // Packed and stored while the browser runs: the run does not wait for it to start.
  const bundleStored = storeBundle(ctx, run, loaded, workDir);
  bundleStored.catch(() => {});
  const { result, secrets } = await executeLoaded(ctx, run, loaded, workDir, signal);
  await bundleStored;
  if (signal.aborted) return;
  const capError = await uploadArtifacts(ctx, run, result, secrets);
  await recordVisualChecks(ctx, run, loaded, result.tests);
  await finishRun(ctx, run, withCapError(result, capError));
}

/**
 * Plans the run from its tests' expected durations; with more than one batch, stores the
 * bundle, writes the batches (the first claimed by this slot) and wakes the other runners.
 */
async function splitRun(
  ctx: AppContext,
  run: RunRow,
  loaded: LoadedProject,
  holder: SlotInfo,
  workDir: string,
): Promise<boolean> {
  if (holder.parallels < 2 || loaded.compilable.length < 2) {
    const reason =
      loaded.compilable.length < 2
        ? `1 batch: the run has ${loaded.compilable.length} test${loaded.compilable.length === 1 ? '' : 's'}`
        : `1 batch: ${holder.parallels} free slot${holder.parallels === 1 ? '' : 's'} for the organization`;
    await recordRunPlan(ctx.db, run.id, { batches: 1, reason });
    return false;
  }
  const recorded = await recordedDurations(
    ctx.db,
    run.branchId,
    loaded.compilable.map((test) => test.id),
  );
  const units = loaded.compilable.map((test) => ({
    testId: test.id,
    expectedMs:
      (recorded.get(test.id) ?? estimateFromSteps(test.steps)) * (loaded.repeatEach.get(test.id) ?? 1),
  }));
  const plan = planRun(units, holder.parallels);
  const planned = plan.batches;
  await recordRunPlan(ctx.db, run.id, { batches: planned.length, reason: plan.reason });
  if (planned.length < 2) {
    ctx.log.info({ runId: run.id, reason: plan.reason }, 'run kept in one batch');
    return false;
  }
  await storeBundle(ctx, run, loaded, workDir);
  const now = ctx.clock.now().toISOString();
  const written = await splitIntoBatches(ctx.db, run.id, planned, {
    runnerId: holder.runnerId,
    slot: holder.slot,
    now,
  });
  if (!written) return true;
  ctx.log.info(
    {
      runId: run.id,
      batches: planned.map((batch) => [batch.testIds.length, batch.expectedMs]),
      reason: plan.reason,
    },
    'run split into batches',
  );
  await runtimeOf(ctx).wake();
  return true;
}
