import type { Db, Tx } from '../../../adapters/db/index.ts';
import { unitLifecycle } from './lifecycle.ts';

/**
 * Heartbeat: the holder of a run or unit writes `heartbeatAt` (every {@link heartbeatMs}); a
 * holder silent for {@link staleHeartbeatMs} is judged dead by recovery (recover-repository.ts).
 * The state stays.
 *
 * Locking. Single-row UPDATEs of `heartbeatAt` alone, outside the dispatch lock, guarded by the
 * holder (`runnerId`), so a beat never touches what another runner holds. A unit's beat is also
 * guarded by its status: once recovery has taken the claim back (`pending` or `cancelled`) the
 * beat updates nothing and the holder learns it lost the unit and stops, so a batch put back is
 * never worked on twice at once; recovery re-checks a unit's staleness in its own conditional
 * UPDATE, so a beat committed just before it keeps the claim. On SQLite the statements run one
 * after another on the one connection; on PostgreSQL each takes the row lock for its statement
 * only.
 */

/** How often a holder beats. */
export const heartbeatMs = 500;
/**
 * A run or unit whose holder has not beaten for this long belongs to a dead process (default of
 * `RUNNER_STALE_HEARTBEAT_MS`).
 */
export const staleHeartbeatMs = 15_000;

/** The beat of the runner that holds an unsplit run. */
export async function beatHeldRun(db: Db | Tx, runId: string, runnerId: string): Promise<void> {
  await db
    .updateTable('runs')
    .set({ heartbeatAt: Date.now() })
    .where('id', '=', runId)
    .where('runnerId', '=', runnerId)
    .execute();
}

/** The beat of a split run, from any slot working on one of its units. */
export async function beatRun(db: Db | Tx, runId: string): Promise<void> {
  await db.updateTable('runs').set({ heartbeatAt: Date.now() }).where('id', '=', runId).execute();
}

/**
 * The beat of the unit this runner holds (claimed, or done and awaiting the merge); false when
 * the claim was taken back.
 */
export async function beatUnit(
  db: Db | Tx,
  unit: { runId: string; position: number },
  runnerId: string,
): Promise<boolean> {
  const held = await db
    .updateTable('runBatches')
    .set({ heartbeatAt: Date.now() })
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('runnerId', '=', runnerId)
    .where('status', 'in', unitLifecycle.from('heartbeat'))
    .executeTakeFirst();
  return Number(held.numUpdatedRows) === 1;
}
