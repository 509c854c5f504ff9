import type { AppContext } from '../../context.ts';
import { batchTestIds } from './batches-repository.ts';
import { failRun } from './finish.ts';
import { claimedStatuses } from './repository.ts';

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
  const stale = await ctx.db
    .selectFrom('runBatches')
    .innerJoin('runs', 'runs.id', 'runBatches.runId')
    .select([
      'runBatches.runId',
      'runBatches.position',
      'runBatches.attempts',
      'runBatches.testIds',
      'runBatches.kind',
    ])
    .where('runBatches.status', '=', 'claimed')
    .where('runBatches.heartbeatAt', '<', staleBefore)
    .where('runs.status', 'in', [...claimedStatuses])
    .execute();
  let returned = 0;
  for (const batch of stale) {
    const back = batch.attempts < 2;
    // Read (and checked) before anything is written: a corrupt row stops here, named.
    const ids = back ? [] : batchTestIds(batch);
    const updated = await ctx.db
      .updateTable('runBatches')
      .set(
        back
          ? { status: 'pending', runnerId: null, slot: null, heartbeatAt: null, startedAt: null }
          : { status: 'cancelled', completedAt: ctx.clock.now().toISOString() },
      )
      .where('runId', '=', batch.runId)
      .where('position', '=', batch.position)
      .where('status', '=', 'claimed')
      .where('heartbeatAt', '<', staleBefore)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) continue;
    if (back) {
      ctx.log.warn({ runId: batch.runId, batch: batch.position }, 'batch of a dead runner put back');
      returned += 1;
      continue;
    }
    const names = ids.length
      ? await ctx.db
          .selectFrom('runTests')
          .select(['testName'])
          .where('runId', '=', batch.runId)
          .where('testId', 'in', ids)
          .orderBy('position')
          .execute()
      : [];
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
