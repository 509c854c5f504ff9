import type { StepNode } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { readSetting, writeSetting } from '../../settings.ts';
import { recentTestDurations } from './repository.ts';
import { StartupCost } from './startup-cost.ts';

/**
 * How an orchestrated run is split (issue 21). Each test (with all its `repeatEach` copies:
 * Playwright cannot select one copy of a spec from the command line) is a unit of expected
 * duration: the mean of its last three recorded durations on the run's branch, else an
 * estimate from its steps. Units are packed longest first into batches that free slots claim.
 */

/**
 * What one `playwright test` costs besides its tests before this process has measured it (the
 * bench's figure on the slowest machine it met; startup-cost.ts measures the real one).
 */
export const batchStartupMs = 2_500;
/** The start-up cost this process measures on every execution (startup-cost.ts). */
export const startupCost = new StartupCost(batchStartupMs);
/** Where the install keeps the last start-up cost a runner measured. */
const startupSetting = 'runner.startupMs';

/**
 * Seeds `cost` with the start-up cost the install last stored, so that a runner that just
 * started (a restart, a deploy, a new worker) plans as the previous one did rather than with
 * {@link batchStartupMs}: with the fallback, a run of 24 s of work got 2 batches, not 4.
 */
export async function loadStartupCost(db: Db, cost = startupCost): Promise<void> {
  const stored = Number(await readSetting(db, startupSetting));
  if (!(stored > 0)) return;
  cost.seed(stored);
  cost.storedMs = stored;
}

/** Stores `cost`'s estimate for the next runner to start, when it moved by a tenth or more. */
export async function storeStartupCost(db: Db, cost = startupCost): Promise<void> {
  if (cost.measured === 0) return;
  const estimate = cost.estimate();
  const last = cost.storedMs;
  if (last !== undefined && Math.abs(estimate - last) < last / 10) return;
  cost.storedMs = estimate;
  await writeSetting(db, startupSetting, String(estimate));
}
/**
 * A batch carries at least this many start-ups' worth of tests, so start-up stays at most a
 * fifth of a batch's work (the rule behind the batch count, see {@link planBatches}).
 */
export const minWorkPerStartup = 4;

/** No history: 1 s per test, 250 ms per step, plus the waits the steps spell out. */
export function estimateFromSteps(steps: StepNode[]): number {
  let total = 1_000;
  const visit = (nodes: StepNode[]) => {
    for (const node of nodes) {
      total += 250;
      const action = node.action as { name?: string; ms?: unknown };
      if (action.name === 'wait' && typeof action.ms === 'number') total += action.ms;
      if (node.children) visit(node.children);
    }
  };
  visit(steps);
  return total;
}

/** The mean of the last three recorded durations of each test on the branch (ms). */
export async function recordedDurations(
  db: Db,
  branchId: string,
  testIds: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (testIds.length === 0) return out;
  const rows = await recentTestDurations(db, branchId, testIds);
  const seen = new Map<string, number[]>();
  for (const row of rows) {
    const list = seen.get(row.testId) ?? [];
    if (list.length < 3) list.push(Number(row.duration));
    seen.set(row.testId, list);
  }
  for (const [testId, list] of seen) out.set(testId, list.reduce((a, b) => a + b, 0) / list.length);
  return out;
}

export interface PlannedUnit {
  testId: string;
  expectedMs: number;
}

export interface PlannedBatch {
  testIds: string[];
  expectedMs: number;
}

/**
 * The batches of a run: as many as the run can use at once (`parallels`), fewer when the
 * work would not carry {@link minWorkPerStartup} start-ups per batch, each test going to the
 * batch with the least expected work so far, longest test first (LPT). Batches are ordered
 * by expected work, longest first, so the longest is claimed first. One batch means the run
 * executes as an unsplit run.
 */
export function planBatches(
  units: PlannedUnit[],
  parallels: number,
  startupMs = startupCost.estimate(),
): PlannedBatch[] {
  const work = units.reduce((sum, unit) => sum + unit.expectedMs, 0);
  const byCost = Math.floor(work / (minWorkPerStartup * startupMs));
  const count = Math.max(1, Math.min(parallels, units.length, byCost));
  const sorted = [...units].sort((a, b) => b.expectedMs - a.expectedMs);
  const batches: PlannedBatch[] = Array.from({ length: count }, () => ({ testIds: [], expectedMs: 0 }));
  for (const unit of sorted) {
    let lightest = batches[0] as PlannedBatch;
    for (const batch of batches) if (batch.expectedMs < lightest.expectedMs) lightest = batch;
    lightest.testIds.push(unit.testId);
    lightest.expectedMs += unit.expectedMs;
  }
  return batches
    .filter((batch) => batch.testIds.length > 0)
    .sort((a, b) => b.expectedMs - a.expectedMs)
    .map((batch) => ({ ...batch, expectedMs: Math.round(batch.expectedMs) }));
}
