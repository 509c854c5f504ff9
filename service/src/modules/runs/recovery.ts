import type { AppContext } from '../../context.ts';
import { batchTestIds, releaseStaleBatch, staleClaimedBatches } from './batches-repository.ts';
import { failRun } from './finish.ts';
import { claimedStatuses, testNamesOfRun } from './repository.ts';

/** Heartbeat age after which a claimed batch's runner counts as dead (RUNNER_STALE_HEARTBEAT_MS). */
const defaultStaleMs = 15_000;

/**
 * Batches whose runner stopped beating (SIGKILL, crash, lost host): the first time such a
 * batch is put back for another slot (its processes die with their supervisor, so the tests
 * never run twice at once); the second time the run fails with a runner error naming the
 * tests. Returns the number of batches put back.
 */
export async function recoverBatches(ctx: AppContext): Promise<number> {
  const staleBefore = Date.now() - (ctx.config.runnerStaleHeartbeatMs ?? defaultStaleMs);
  const stale = await staleClaimedBatches(ctx.db, staleBefore);
  let returned = 0;
  for (const batch of stale) {
    const back = batch.attempts < 2;
    // Read (and checked) before anything is written: a corrupt row stops here, named.
    const ids = back ? [] : batchTestIds(batch);
    const released = await releaseStaleBatch(
      ctx.db,
      batch,
      staleBefore,
      back
        ? { status: 'pending', runnerId: null, slot: null, heartbeatAt: null, startedAt: null }
        : { status: 'cancelled', completedAt: ctx.clock.now().toISOString() },
    );
    if (!released) continue;
    if (back) {
      ctx.log.warn({ runId: batch.runId, batch: batch.position }, 'batch of a dead runner put back');
      returned += 1;
      continue;
    }
    const names = ids.length ? await testNamesOfRun(ctx.db, batch.runId, ids) : [];
    const what =
      batch.kind === 'merge' ? 'the merge of the run' : names.map((row) => row.testName).join(', ');
    await failRun(
      ctx,
      batch.runId,
      `Runner failed: the runner executing ${what} stopped before it finished, twice (the batch was put back once)`,
      [...claimedStatuses],
    );
  }
  return returned;
}
