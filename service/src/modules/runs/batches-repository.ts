import type { RunBatch, RunShard } from '@stepdeck/contract';
import { z } from 'zod';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { readJson, toJson } from '../../adapters/db/index.ts';
import type { PlannedBatch } from './planner.ts';
import { claimedStatuses } from './repository.ts';

/**
 * The live queue of orchestrated runs (table `runBatches`, issue 21). Every claim happens in
 * the dispatch transaction (advisory lock on PostgreSQL, one writer on SQLite), so a batch is
 * claimed exactly once and the concurrency cap counts every slot at work across processes.
 */

/** Where a batch keeps what only the merge reads (outside `runs/<id>/`: never listed as artifacts). */
export const batchWorkKey = (runId: string, name: string) => `run-work/${runId}/${name}`;

export interface ClaimedUnit {
  runId: string;
  position: number;
  kind: 'tests' | 'merge';
}

/** The test results a finished batch keeps for the merge (artifact files already stored). */
export interface BatchResult {
  status: 'passed' | 'failed' | 'runnerError';
  runnerError: string | null;
  durationMs: number;
  // biome-ignore lint/suspicious/noExplicitAny: the executor's ExecutedTest, stored as JSON
  tests: any[];
}

/**
 * What `runBatches` columns hold (internal shapes, no contract schema): `testIds` the batch's
 * test ids, `result` what the merge reads (each test entry the executor's `ExecutedTest`,
 * checked as an object). Read back through `readJson`, so a corrupt row is named, not merged.
 */
const storedBatchTestIds = z.array(z.string());
const storedBatchResult = z
  .object({
    status: z.enum(['passed', 'failed', 'runnerError']),
    runnerError: z.string().nullable(),
    durationMs: z.number(),
    tests: z.array(
      z.custom<BatchResult['tests'][number]>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
        'a test result object',
      ),
    ),
  })
  .nullable();

/** A batch's test ids, checked (a corrupt column stops with the batch and column named). */
export const batchTestIds = (row: { runId: string; position: number; testIds: string }): string[] =>
  readJson(storedBatchTestIds, row.testIds, [], `runBatches ${row.runId}:${row.position}/testIds`);

/** Parallels an organization uses: unsplit runs held by a runner, plus batches being worked on. */
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

/**
 * Writes a run's batches and the merge unit; the first batch is claimed at once by the slot
 * that planned them (it already counts as the run's one parallel).
 */
export async function insertBatches(
  tx: Tx,
  runId: string,
  planned: PlannedBatch[],
  holder: { runnerId: string; slot: string; now: string },
): Promise<void> {
  const rows = planned.map((batch, position) => ({
    runId,
    position,
    kind: 'tests',
    testIds: toJson(batch.testIds),
    expectedMs: batch.expectedMs,
    status: position === 0 ? 'claimed' : 'pending',
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
 * Call inside the dispatch transaction.
 */
export async function claimBatch(
  tx: Tx,
  holder: { runnerId: string; slot: string; now: string },
  capOf: (organizationId: string) => Promise<number>,
): Promise<ClaimedUnit | undefined> {
  const pending = await tx
    .selectFrom('runBatches')
    .innerJoin('runs', 'runs.id', 'runBatches.runId')
    .select(['runBatches.runId', 'runBatches.position', 'runBatches.kind', 'runs.organizationId'])
    .where('runBatches.status', '=', 'pending')
    .where('runs.status', 'in', [...claimedStatuses])
    .orderBy('runs.createdAt')
    .orderBy('runBatches.position')
    .limit(200)
    .execute();
  const full = new Set<string>();
  for (const unit of pending) {
    if (full.has(unit.organizationId)) continue;
    if (unit.kind === 'merge' && (await openBatches(tx, unit.runId)) > 0) continue;
    if ((await parallelsInUse(tx, unit.organizationId)) >= (await capOf(unit.organizationId))) {
      full.add(unit.organizationId);
      continue;
    }
    const claimed = await tx
      .updateTable('runBatches')
      .set((eb) => ({
        status: 'claimed',
        runnerId: holder.runnerId,
        slot: holder.slot,
        heartbeatAt: Date.now(),
        startedAt: holder.now,
        attempts: eb('attempts', '+', 1),
      }))
      .where('runId', '=', unit.runId)
      .where('position', '=', unit.position)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 1)
      return { runId: unit.runId, position: unit.position, kind: unit.kind as ClaimedUnit['kind'] };
  }
  return undefined;
}

/** Batches of a run not done yet. */
export async function openBatches(db: Db | Tx, runId: string): Promise<number> {
  const row = await db
    .selectFrom('runBatches')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('runId', '=', runId)
    .where('kind', '=', 'tests')
    .where('status', '!=', 'done')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findBatch(db: Db | Tx, runId: string, position: number) {
  return db
    .selectFrom('runBatches')
    .selectAll()
    .where('runId', '=', runId)
    .where('position', '=', position)
    .executeTakeFirst();
}

export async function doneBatches(db: Db | Tx, runId: string) {
  const rows = await db
    .selectFrom('runBatches')
    .selectAll()
    .where('runId', '=', runId)
    .where('kind', '=', 'tests')
    .orderBy('position')
    .execute();
  return rows.map((row) => ({
    ...row,
    parsed: readJson(storedBatchResult, row.result, null, `runBatches ${row.runId}:${row.position}/result`),
  }));
}

/** Ends a unit held by this runner (`done` with its result, or `cancelled`). */
export async function endBatch(
  db: Db,
  unit: { runId: string; position: number; runnerId: string },
  status: 'done' | 'cancelled',
  completedAt: string,
  result?: BatchResult,
): Promise<boolean> {
  const updated = await db
    .updateTable('runBatches')
    .set({ status, completedAt, result: result ? toJson(result) : null })
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('runnerId', '=', unit.runnerId)
    .where('status', '=', 'claimed')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** The run detail's `shards`: one entry per slot that worked on the run's batches. */
export async function shardsOf(db: Db | Tx, runId: string): Promise<RunShard[]> {
  const rows = await db
    .selectFrom('runBatches')
    .select(['position', 'slot', 'testIds', 'startedAt', 'completedAt', 'kind', 'status'])
    .where('runId', '=', runId)
    .where('kind', '=', 'tests')
    .where('slot', 'is not', null)
    .orderBy('position')
    .execute();
  const bySlot = new Map<string, RunShard>();
  for (const row of rows) {
    const worker = row.slot as string;
    const shard = bySlot.get(worker) ?? { worker, tests: 0, batches: 0, durationMs: 0 };
    shard.batches += 1;
    if (row.status === 'done') shard.tests += batchTestIds({ ...row, runId }).length;
    if (row.startedAt && row.completedAt)
      shard.durationMs += Math.max(0, Date.parse(row.completedAt) - Date.parse(row.startedAt));
    bySlot.set(worker, shard);
  }
  return [...bySlot.values()];
}

/** The test batches of a split run, in claim order, for the run detail (none for an unsplit run). */
export async function batchesOf(db: Db | Tx, runId: string): Promise<RunBatch[]> {
  const rows = await db
    .selectFrom('runBatches')
    .select(['position', 'status', 'testIds', 'slot', 'attempts', 'expectedMs', 'startedAt', 'completedAt'])
    .where('runId', '=', runId)
    .where('kind', '=', 'tests')
    .orderBy('position')
    .execute();
  return rows.map((row) => ({
    position: Number(row.position),
    status: row.status as RunBatch['status'],
    testIds: batchTestIds({ ...row, runId }),
    worker: row.slot,
    attempts: Number(row.attempts),
    expectedMs: Number(row.expectedMs),
    startedAt: row.startedAt,
    completedAt: row.completedAt,
    durationMs:
      row.startedAt && row.completedAt
        ? Math.max(0, Date.parse(row.completedAt) - Date.parse(row.startedAt))
        : null,
  }));
}

/** Claimed batches of active runs whose runner's last heartbeat is older than `staleBefore`. */
export async function staleClaimedBatches(db: Db | Tx, staleBefore: number) {
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
    .where('runBatches.status', '=', 'claimed')
    .where('runBatches.heartbeatAt', '<', staleBefore)
    .where('runs.status', 'in', [...claimedStatuses])
    .execute();
}

/**
 * Puts a stale batch back or cancels it (`changes`), only while it is still claimed and stale;
 * whether this call did it (another process may have first).
 */
export async function releaseStaleBatch(
  db: Db | Tx,
  batch: { runId: string; position: number },
  staleBefore: number,
  changes:
    | { status: 'pending'; runnerId: null; slot: null; heartbeatAt: null; startedAt: null }
    | { status: 'cancelled'; completedAt: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('runBatches')
    .set(changes)
    .where('runId', '=', batch.runId)
    .where('position', '=', batch.position)
    .where('status', '=', 'claimed')
    .where('heartbeatAt', '<', staleBefore)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A heartbeat of the unit this runner holds (claimed, or done and awaiting the merge); false when the claim was taken back. */
export async function beatBatch(
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
    .where('status', 'in', ['claimed', 'done'])
    .executeTakeFirst();
  return Number(held.numUpdatedRows) === 1;
}

/** The slot that ended the last batch claims the pending merge unit; whether it got it. */
export async function claimMergeUnit(
  db: Db | Tx,
  merge: { runId: string; position: number },
  runnerId: string,
  now: string,
): Promise<boolean> {
  const taken = await db
    .updateTable('runBatches')
    .set((eb) => ({
      status: 'claimed',
      runnerId,
      slot: null,
      heartbeatAt: Date.now(),
      startedAt: now,
      attempts: eb('attempts', '+', 1),
    }))
    .where('runId', '=', merge.runId)
    .where('position', '=', merge.position)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Every unit of a run with its kind and status. */
export async function unitStatesOf(db: Db | Tx, runId: string) {
  return db
    .selectFrom('runBatches')
    .select(['position', 'kind', 'status'])
    .where('runId', '=', runId)
    .execute();
}

/** Gives a unit claimed during shutdown back (`claimed` → `pending`, the claim not counted). */
export async function releaseUnit(db: Db | Tx, unit: ClaimedUnit, runnerId: string): Promise<void> {
  await db
    .updateTable('runBatches')
    .set((eb) => ({
      status: 'pending',
      runnerId: null,
      slot: null,
      heartbeatAt: null,
      attempts: eb('attempts', '-', 1),
    }))
    .where('runId', '=', unit.runId)
    .where('position', '=', unit.position)
    .where('status', '=', 'claimed')
    .where('runnerId', '=', runnerId)
    .execute();
}
