import type { Db, Tx } from '../../../adapters/db/index.ts';
import type { ClaimedUnit } from './claim-batch-repository.ts';
import { runLifecycle, unitLifecycle } from './lifecycle.ts';

/**
 * Release: a slot that claimed work while its process was shutting down gives it back
 * unworked (a run `queued` → `pending`, a unit `claimed` → `pending`, its attempt not
 * counted), for another runner to claim.
 *
 * Locking. One conditional UPDATE guarded by the holder (`runnerId`) and the claimed state,
 * outside the dispatch lock: only the holder releases, and only what it has not started (a
 * run already `running` is failed instead). It competes only with a cancel or recovery of the
 * same row, each conditional too: on PostgreSQL the row lock orders them and the later one
 * re-checks (READ COMMITTED); on SQLite they run one after another. A released run is a
 * `pending` run like any other: the next claim takes it under the dispatch lock.
 */

/** Gives a run claimed during shutdown back. */
export async function releaseRunClaim(db: Db | Tx, runId: string, runnerId: string): Promise<void> {
  await db
    .updateTable('runs')
    .set({ status: runLifecycle.to('release', 'pending'), queuedAt: null, runnerId: null, heartbeatAt: null })
    .where('id', '=', runId)
    .where('status', 'in', runLifecycle.from('release'))
    .where('runnerId', '=', runnerId)
    .execute();
}

/** Gives a unit claimed during shutdown back, the claim not counted as an attempt. */
export async function releaseUnit(db: Db | Tx, unit: ClaimedUnit, runnerId: string): Promise<void> {
  await db
    .updateTable('runBatches')
    .set((eb) => ({
      status: unitLifecycle.to('release', 'pending'),
      runnerId: null,
      slot: null,
      heartbeatAt: null,
      attempts: eb('attempts', '-', 1),
    }))
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('status', 'in', unitLifecycle.from('release'))
    .where('runnerId', '=', runnerId)
    .execute();
}
