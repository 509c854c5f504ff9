import type { RunBatch, RunShard } from '@stepdeck/contract';
import { z } from 'zod';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { readJson } from '../../adapters/db/index.ts';

/**
 * The units of split runs (table `runBatches`) as the run detail, the batches and the merge
 * read them. How units are written, claimed, ended, given back and recovered is in queue/.
 */

/** Where a batch keeps what only the merge reads (outside `runs/<id>/`: never listed as artifacts). */
export const batchWorkKey = (runId: string, name: string) => `run-work/${runId}/${name}`;

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

/** Every unit of a run with its kind and status. */
export async function unitStatesOf(db: Db | Tx, runId: string) {
  return db
    .selectFrom('runBatches')
    .select(['position', 'kind', 'status'])
    .where('runId', '=', runId)
    .execute();
}
