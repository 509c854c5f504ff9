import type { Db, DbKind, Tx } from '../../../adapters/db/index.ts';
import { lockDispatch } from '../repository.ts';
import { type ClaimedUnit, claimBatch } from './claim-batch-repository.ts';
import { claimedStatuses, runLifecycle } from './lifecycle.ts';

/**
 * Claim: a runner slot takes its next piece of work: first the next unit of a started split
 * run (claim-batch-repository.ts: started runs finish first), else the oldest pending run
 * (`pending` → `queued`), in both cases only while the organization has a free parallel of
 * its concurrency cap.
 *
 * Locking. The whole claim is one transaction that first takes the dispatch lock:
 * - PostgreSQL (any number of processes: the API with background work, each `npm run
 *   worker`): `pg_advisory_xact_lock(hashtext('runs:dispatch'))`, one lock for the install,
 *   held until commit. Every claim of every process queues on it, so counting an
 *   organization's parallels in use and claiming within the cap is one step across processes:
 *   two workers never both see the last free parallel and both take it. Each claim is also a
 *   conditional UPDATE (`WHERE status = 'pending'`); under READ COMMITTED a second UPDATE of
 *   the same row waits for the first to commit and re-checks the condition, so a run goes to
 *   exactly one runner (one UPDATE counts one row, the other none) even apart from the lock.
 * - SQLite: the embedded service is the database's only process (`npm run worker` needs
 *   PostgreSQL) and its one write connection runs transactions one after another, so claims
 *   are already serial; the lock call does nothing and the same conditional UPDATE decides.
 * The lock is held for a few indexed reads and one UPDATE, never while anything executes.
 */

export interface Claim {
  runId: string;
  /** A batch (or merge) of a started run; absent for a whole pending run. */
  unit?: ClaimedUnit;
  /** The organization's concurrency cap. */
  cap: number;
}

/** Reads an organization's concurrency cap inside the claim's transaction. */
export type CapReader = (tx: Tx, organizationId: string) => Promise<number>;

/** The next unit of a started run, else the oldest pending run, that fits its organization's cap. */
export async function claimNext(
  db: Db,
  kind: DbKind,
  holder: { runnerId: string; slot: string; now: string },
  capReader: CapReader,
): Promise<Claim | undefined> {
  return db.transaction().execute(async (tx) => {
    await lockDispatch(tx, kind, 'runs:dispatch');
    const caps = new Map<string, number>();
    const capOf = async (organizationId: string) => {
      const known = caps.get(organizationId);
      if (known !== undefined) return known;
      const cap = await capReader(tx, organizationId);
      caps.set(organizationId, cap);
      return cap;
    };
    const hasFreeParallel = async (organizationId: string) =>
      (await parallelsInUse(tx, organizationId)) < (await capOf(organizationId));
    const unit = await claimBatch(tx, holder, hasFreeParallel);
    if (unit) {
      const run = await organizationOfRun(tx, unit.runId);
      return { runId: unit.runId, unit, cap: await capOf(run.organizationId) };
    }
    const pending = await oldestPendingRuns(tx);
    const full = new Set<string>();
    for (const run of pending) {
      if (full.has(run.organizationId)) continue;
      if (!(await hasFreeParallel(run.organizationId))) {
        full.add(run.organizationId);
        continue;
      }
      if (await claimPendingRun(tx, run.id, holder.runnerId, holder.now))
        return { runId: run.id, cap: await capOf(run.organizationId) };
    }
    return undefined;
  });
}

/** Parallels an organization uses: unsplit runs held by a runner, plus units being worked on. */
export async function parallelsInUse(tx: Db | Tx, organizationId: string): Promise<number> {
  const runs = await tx
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organizationId', '=', organizationId)
    .where('status', 'in', [...claimedStatuses])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('runBatches').select('runBatches.runId').whereRef('runBatches.runId', '=', 'runs.id'),
        ),
      ),
    )
    .executeTakeFirstOrThrow();
  const batches = await tx
    .selectFrom('runBatches')
    .innerJoin('runs', 'runs.id', 'runBatches.runId')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('runs.organizationId', '=', organizationId)
    .where('runs.status', 'in', [...claimedStatuses])
    .where('runBatches.status', '=', 'claimed')
    .executeTakeFirstOrThrow();
  return Number(runs.count) + Number(batches.count);
}

/** The organization of a run that must exist (a claimed unit's run). */
async function organizationOfRun(tx: Tx, runId: string) {
  return tx.selectFrom('runs').select(['organizationId']).where('id', '=', runId).executeTakeFirstOrThrow();
}

/** Up to 200 pending runs, oldest first. */
async function oldestPendingRuns(tx: Tx) {
  return tx
    .selectFrom('runs')
    .select(['id', 'organizationId'])
    .where('status', 'in', runLifecycle.from('claim'))
    .orderBy('createdAt')
    .limit(200)
    .execute();
}

/** `pending` → `queued`, held by this runner; whether it got the run. */
async function claimPendingRun(tx: Tx, runId: string, runnerId: string, now: string): Promise<boolean> {
  const claimed = await tx
    .updateTable('runs')
    .set({ status: runLifecycle.to('claim', 'queued'), queuedAt: now, runnerId, heartbeatAt: Date.now() })
    .where('id', '=', runId)
    .where('status', 'in', runLifecycle.from('claim'))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
