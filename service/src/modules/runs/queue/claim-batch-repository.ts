import type { Db, Tx } from '../../../adapters/db/index.ts';
import { toJson } from '../../../adapters/db/index.ts';
import type { PlannedBatch } from '../planner.ts';
import { runStatusOf } from '../repository.ts';
import { claimedStatuses, unitLifecycle } from './lifecycle.ts';

/**
 * Claim batch: the units of a split run (table `runBatches`: its batches of tests, then one
 * merge) go `pending` → `claimed`, each to one slot of any process.
 *
 * Locking.
 * - Writing the batches: one transaction re-reads the run's status and inserts the rows only
 *   while it is `running`, batch 0 already claimed by the planning slot (which holds the
 *   run's one parallel, so the cap still counts it once). The read takes no row lock: a
 *   cancel committed in between leaves rows of a cancelled run, which no claim takes (claims
 *   join on a run still held, below) and nothing executes.
 * - Claiming a batch ({@link claimBatch}) happens only inside the claim transaction of
 *   claim-repository.ts, under its dispatch lock (PostgreSQL advisory lock; SQLite's one
 *   writer): the organization's parallels are counted and the unit claimed as one step across
 *   processes, and the conditional UPDATE (`WHERE status = 'pending'`) gives a unit to one
 *   slot even apart from the lock (a concurrent UPDATE of the row waits and re-checks).
 * - The merge ({@link claimMergeUnit}) is taken outside that lock by the slot that ended the
 *   run's last batch, which keeps working on the same run (no cap check). It competes only
 *   with {@link claimBatch} for the same row, and the same conditional UPDATE lets one win.
 */

export interface ClaimedUnit {
  runId: string;
  position: number;
  kind: 'tests' | 'merge';
}

/**
 * Writes a run's batches and its merge unit while the run is still `running`; the first batch
 * is claimed at once by the slot that planned them. False when the run had ended meanwhile.
 */
export async function splitIntoBatches(
  db: Db,
  runId: string,
  planned: PlannedBatch[],
  holder: { runnerId: string; slot: string; now: string },
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const current = await runStatusOf(tx, runId);
    if (current?.status !== 'running') return false;
    await insertBatches(tx, runId, planned, holder);
    return true;
  });
}

async function insertBatches(
  tx: Tx,
  runId: string,
  planned: PlannedBatch[],
  holder: { runnerId: string; slot: string; now: string },
): Promise<void> {
  const claimed = unitLifecycle.to('claim', 'claimed');
  const rows = planned.map((batch, position) => ({
    runId,
    position,
    kind: 'tests',
    testIds: toJson(batch.testIds),
    expectedMs: batch.expectedMs,
    status: position === 0 ? claimed : 'pending',
    attempts: position === 0 ? 1 : 0,
    runnerId: position === 0 ? holder.runnerId : null,
    slot: position === 0 ? holder.slot : null,
    heartbeatAt: position === 0 ? Date.now() : null,
    startedAt: position === 0 ? holder.now : null,
    completedAt: null,
    result: null,
  }));
  rows.push({
    ...(rows[0] as (typeof rows)[number]),
    position: planned.length,
    kind: 'merge',
    testIds: '[]',
    expectedMs: 0,
    status: 'pending',
    attempts: 0,
    runnerId: null,
    slot: null,
    heartbeatAt: null,
    startedAt: null,
  });
  await tx.insertInto('runBatches').values(rows).execute();
}

/**
 * The next pending unit of a started run whose organization has a free parallel, oldest run
 * first, longest batch first; the merge unit only once every batch of its run is done.
 * Call inside the claim transaction (claim-repository.ts).
 */
export async function claimBatch(
  tx: Tx,
  holder: { runnerId: string; slot: string; now: string },
  hasFreeParallel: (organizationId: string) => Promise<boolean>,
): Promise<ClaimedUnit | undefined> {
  const pending = await tx
    .selectFrom('runBatches')
    .innerJoin('runs', 'runs.id', 'runBatches.runId')
    .select(['runBatches.runId', 'runBatches.position', 'runBatches.kind', 'runs.organizationId'])
    .where('runBatches.status', 'in', unitLifecycle.from('claim'))
    .where('runs.status', 'in', [...claimedStatuses])
    .orderBy('runs.createdAt')
    .orderBy('runBatches.position')
    .limit(200)
    .execute();
  const full = new Set<string>();
  for (const unit of pending) {
    if (full.has(unit.organizationId)) continue;
    if (unit.kind === 'merge' && (await openBatches(tx, unit.runId)) > 0) continue;
    if (!(await hasFreeParallel(unit.organizationId))) {
      full.add(unit.organizationId);
      continue;
    }
    if (await takeUnit(tx, unit, { runnerId: holder.runnerId, slot: holder.slot }, holder.now))
      return { runId: unit.runId, position: unit.position, kind: unit.kind as ClaimedUnit['kind'] };
  }
  return undefined;
}

/** The slot that ended the last batch claims the pending merge unit; whether it got it. */
export async function claimMergeUnit(
  db: Db | Tx,
  merge: { runId: string; position: number },
  runnerId: string,
  now: string,
): Promise<boolean> {
  return takeUnit(db, merge, { runnerId, slot: null }, now);
}

/** `pending` → `claimed` for this holder, counting the attempt; whether this call took it. */
async function takeUnit(
  db: Db | Tx,
  unit: { runId: string; position: number },
  holder: { runnerId: string; slot: string | null },
  now: string,
): Promise<boolean> {
  const taken = await db
    .updateTable('runBatches')
    .set((eb) => ({
      status: unitLifecycle.to('claim', 'claimed'),
      runnerId: holder.runnerId,
      slot: holder.slot,
      heartbeatAt: Date.now(),
      startedAt: now,
      attempts: eb('attempts', '+', 1),
    }))
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('status', 'in', unitLifecycle.from('claim'))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Batches of a run not done yet. */
async function openBatches(db: Db | Tx, runId: string): Promise<number> {
  const row = await db
    .selectFrom('runBatches')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('runId', '=', runId)
    .where('kind', '=', 'tests')
    .where('status', '!=', 'done')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
