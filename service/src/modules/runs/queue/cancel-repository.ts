import type { Db, Tx } from '../../../adapters/db/index.ts';
import { runLifecycle } from './lifecycle.ts';

/**
 * Cancel: a user stops a run that has not ended (`pending`/`queued`/`running` → `cancelled`).
 * A runner holding it learns of it from its heartbeat's read (within 500 ms; at once in this
 * process, through the runs runtime's aborts) and stops its browser; no `run.finished` follows.
 *
 * Locking. One conditional UPDATE (`WHERE status IN` the active states), outside the dispatch
 * lock. It competes with the transitions of the run's holder (start, end, fail) and recovery,
 * each a conditional UPDATE of the same row: on PostgreSQL the row lock orders them and the
 * later one re-checks the status (READ COMMITTED); on SQLite they run one after another. A
 * cancel that comes second finds the run ended and reports so; one that comes first makes
 * the holder's start or end update nothing.
 */

/** Cancels the run if it is still active; false when it had already ended. */
export async function cancelActiveRun(db: Db | Tx, runId: string, now: string): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set({ status: runLifecycle.to('cancel', 'cancelled'), cancelledAt: now, completedAt: now })
    .where('id', '=', runId)
    .where('status', 'in', runLifecycle.from('cancel'))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
