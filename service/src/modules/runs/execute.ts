import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../context.ts';
import { uploadArtifacts } from './artifacts.ts';
import { RunCancelledError } from './errors.ts';
import { failRun, finishRun } from './finish.ts';
import { compileAndExecute } from './prepare.ts';
import { recordRunProcess, releaseRunProcess } from './processes.ts';
import { findRun } from './repository.ts';
import { runtimeOf } from './runtime.ts';

const heartbeatMs = 500;

/** Executes one claimed (`queued`) run to its end; a cancel at any point stops it. */
export async function executeRun(ctx: AppContext, runId: string, runnerId: string): Promise<void> {
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
      const row = await ctx.db
        .selectFrom('runs')
        .select(['status'])
        .where('id', '=', runId)
        .executeTakeFirst();
      if (!row || row.status === 'cancelled') {
        cancelled = true;
        controller.abort(new RunCancelledError());
        return;
      }
      await ctx.db
        .updateTable('runs')
        .set({ heartbeatAt: Date.now() })
        .where('id', '=', runId)
        .where('runnerId', '=', runnerId)
        .execute();
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

  let workDir: string | undefined;
  try {
    const started = await ctx.db
      .updateTable('runs')
      .set({ status: 'running', startedAt: ctx.clock.now().toISOString(), heartbeatAt: Date.now() })
      .where('id', '=', runId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (Number(started.numUpdatedRows) !== 1) return;
    const run = await findRun(ctx.db, runId);
    if (!run) return;
    workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'stepdeck-run-'));
    await recordRunProcess(ctx, runId, runnerId, workDir);
    const result = await compileAndExecute(ctx, run, workDir, controller.signal);
    if (cancelled || controller.signal.aborted) return;
    await uploadArtifacts(ctx, run, result.result, result.secrets);
    await finishRun(ctx, run, result.result);
  } catch (error) {
    if (cancelled) return;
    const message = error instanceof Error ? error.message : String(error);
    await failRun(ctx, runId, `Runner failed: ${message}`, ['running', 'queued']);
  } finally {
    clearInterval(beat);
    await beating;
    runtime.aborts.delete(runId);
    if (workDir) {
      await fsp.rm(workDir, { recursive: true, force: true }).catch(() => {});
      await releaseRunProcess(ctx.db, runId).catch((error: unknown) =>
        ctx.log.warn({ err: error, runId }, 'could not release the run process record'),
      );
    }
  }
}
