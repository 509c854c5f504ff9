import type { Db, Tx } from '../../../adapters/db/index.ts';
import type { AppContext } from '../../../context.ts';
import { batchTestIds } from '../batches-repository.ts';
import { failRun } from './end-repository.ts';
import { staleHeartbeatMs } from './heartbeat-repository.ts';
import { claimedStatuses, runLifecycle, unitLifecycle } from './lifecycle.ts';

/**
 * Recover: work held by a process that died (SIGKILL, crash, lost host) is taken back by a live
 * runner. An unsplit run fails with a runner error (`queued`/`running` → `failed`); a unit of a
 * split run goes back to `pending` for another slot the first time, and the second time is
 * `cancelled` and fails its run naming the tests. The embedded service is the only runner, so
 * at its start every held run is orphaned; with workers, a holder is dead when its heartbeat is
 * older than RUNNER_STALE_HEARTBEAT_MS (every live runner looks every second).
 *
 * Locking. No dispatch lock: several runners may look at once. A unit is taken back by one
 * conditional UPDATE that re-checks it is still claimed and still stale, so of two runners one
 * takes it, and a holder that beat in between keeps it. A run is failed by `failRun`'s
 * conditional UPDATE on its held states: the first runner wins and emits `run.finished`, the
 * others update nothing. That UPDATE does not re-check the heartbeat read just before it: a
 * holder that resumes beating in that moment after 15 s of silence still loses the run.
 * A unit's processes die with their supervisor, so a unit put back never runs twice at once.
 */

/** Fails the runs held by dead processes: all held runs at embedded start, else the stale ones. */
export async function recover(ctx: AppContext, which: 'all' | 'stale'): Promise<number> {
  const orphans = await claimedRunsToRecover(
    ctx.db,
    which === 'stale' ? Date.now() - (ctx.config.runnerStaleHeartbeatMs ?? staleHeartbeatMs) : undefined,
  );
  let failed = 0;
  for (const orphan of orphans) {
    const done = await failRun(
      ctx,
      orphan.id,
      'Runner failed: the process executing this run stopped before it finished',
    );
    if (done) failed += 1;
  }
  return failed;
}

/**
 * Puts the units of dead holders back once, and fails their run the second time (naming the
 * tests). Returns the number of units put back.
 */
export async function recoverUnits(ctx: AppContext): Promise<number> {
  const staleBefore = Date.now() - (ctx.config.runnerStaleHeartbeatMs ?? staleHeartbeatMs);
  const stale = await staleClaimedUnits(ctx.db, staleBefore);
  let returned = 0;
  for (const unit of stale) {
    const back = unit.attempts < 2;
    // Read (and checked) before anything is written: a corrupt row stops here, named.
    const ids = back ? [] : batchTestIds(unit);
    const released = await releaseStaleUnit(
      ctx.db,
      unit,
      staleBefore,
      back
        ? {
            status: unitLifecycle.to('recover', 'pending'),
            runnerId: null,
            slot: null,
            heartbeatAt: null,
            startedAt: null,
          }
        : { status: unitLifecycle.to('recover', 'cancelled'), completedAt: ctx.clock.now().toISOString() },
    );
    if (!released) continue;
    if (back) {
      ctx.log.warn({ runId: unit.runId, batch: unit.position }, 'batch of a dead runner put back');
      returned += 1;
      continue;
    }
    const names = ids.length ? await testNamesOfRun(ctx.db, unit.runId, ids) : [];
    const what = unit.kind === 'merge' ? 'the merge of the run' : names.map((row) => row.testName).join(', ');
    await failRun(
      ctx,
      unit.runId,
      `Runner failed: the runner executing ${what} stopped before it finished, twice (the batch was put back once)`,
    );
  }
  return returned;
}

/**
 * Runs held by a runner: all of them, or with `staleBefore` those whose heartbeat is older and
 * that are not split (a split run is judged by its units: it may wait for free slots).
 */
async function claimedRunsToRecover(db: Db | Tx, staleBefore: number | undefined) {
  let query = db.selectFrom('runs').select(['id']).where('status', 'in', runLifecycle.from('recover'));
  if (staleBefore !== undefined)
    query = query
      .where('heartbeatAt', '<', staleBefore)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('runBatches').select('runBatches.runId').whereRef('runBatches.runId', '=', 'runs.id'),
          ),
        ),
      );
  return query.execute();
}

/** Claimed units of held runs whose holder's last heartbeat is older than `staleBefore`. */
async function staleClaimedUnits(db: Db | Tx, staleBefore: number) {
  return db
    .selectFrom('runBatches')
    .innerJoin('runs', 'runs.id', 'runBatches.runId')
    .select([
      'runBatches.runId',
      'runBatches.position',
      'runBatches.attempts',
      'runBatches.testIds',
      'runBatches.kind',
    ])
    .where('runBatches.status', 'in', unitLifecycle.from('recover'))
    .where('runBatches.heartbeatAt', '<', staleBefore)
    .where('runs.status', 'in', [...claimedStatuses])
    .execute();
}

/**
 * Puts a stale unit back or cancels it (`changes`), only while it is still claimed and stale;
 * whether this call did it (another runner may have first).
 */
async function releaseStaleUnit(
  db: Db | Tx,
  unit: { runId: string; position: number },
  staleBefore: number,
  changes:
    | { status: 'pending'; runnerId: null; slot: null; heartbeatAt: null; startedAt: null }
    | { status: 'cancelled'; completedAt: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('runBatches')
    .set(changes)
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('status', 'in', unitLifecycle.from('recover'))
    .where('heartbeatAt', '<', staleBefore)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** The names of these tests of a run, in the run's order. */
async function testNamesOfRun(db: Db | Tx, runId: string, testIds: string[]) {
  return db
    .selectFrom('runTests')
    .select(['testName'])
    .where('runId', '=', runId)
    .where('testId', 'in', testIds)
    .orderBy('position')
    .execute();
}
