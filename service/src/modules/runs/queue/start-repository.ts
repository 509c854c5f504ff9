import type { Db, Tx } from '../../../adapters/db/index.ts';
import { runLifecycle } from './lifecycle.ts';

/**
 * Start: the slot that claimed a run begins executing it (`queued` → `running`).
 *
 * Locking. One conditional UPDATE on the run's row (`WHERE status = 'queued'`), outside the
 * dispatch lock: only the holder starts its run, so the only competitors are a cancel, a
 * recovery or a shutdown failing it, each a conditional UPDATE of the same row. On PostgreSQL
 * the row lock orders them and the later one re-checks the status (READ COMMITTED); on SQLite
 * they run one after another. Either way one wins: a run cancelled before it started is never
 * executed (false here), and a started run is cancelled by the holder's heartbeat noticing.
 */

/** A claimed run starts; false when it was no longer queued (cancelled meanwhile). */
export async function startQueuedRun(db: Db | Tx, runId: string, now: string): Promise<boolean> {
  const started = await db
    .updateTable('runs')
    .set({ status: runLifecycle.to('start', 'running'), startedAt: now, heartbeatAt: Date.now() })
    .where('id', '=', runId)
    .where('status', 'in', runLifecycle.from('start'))
    .executeTakeFirst();
  return Number(started.numUpdatedRows) === 1;
}
