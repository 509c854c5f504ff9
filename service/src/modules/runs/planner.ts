import type { StepNode } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { readSetting, writeSetting } from '../../settings.ts';
import { recentTestDurations } from './repository.ts';
import { StartupCost } from './startup-cost.ts';

/**
 * How an orchestrated run is split over runner slots. Each test (with all its `repeatEach` copies:
 * Playwright cannot select one copy of a spec from the command line) is a unit of expected
 * duration: the mean of its last three recorded durations on the run's branch, else an
 * estimate from its steps. Units are packed longest first into batches that free slots claim,
 * as many batches as make the run's expected wall time least ({@link planRun}).
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
 * {@link batchStartupMs}.
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

/** A run's batches and why there are that many (for the log and the run's detail). */
export interface RunPlan {
  batches: PlannedBatch[];
  /** e.g. "4 batches on 4 free slots: expected 10.0 s (3 batches: 12.0 s)". */
  reason: string;
}

/** `units` packed into `count` batches, each to the lightest so far, longest unit first (LPT). */
function pack(sorted: PlannedUnit[], count: number): PlannedBatch[] {
  const batches: PlannedBatch[] = Array.from({ length: count }, () => ({ testIds: [], expectedMs: 0 }));
  for (const unit of sorted) {
    let lightest = batches[0] as PlannedBatch;
    for (const batch of batches) if (batch.expectedMs < lightest.expectedMs) lightest = batch;
    lightest.testIds.push(unit.testId);
    lightest.expectedMs += unit.expectedMs;
  }
  return batches.filter((batch) => batch.testIds.length > 0);
}

/**
 * The expected wall time of a run in these batches: the longest batch's work plus one start-up
 * per batch. Batches start side by side and their start-ups (process, workers, browser launch)
 * compete for the same CPU, so each extra batch delays the end by about its start-up: on a
 * 2-core machine, 16 × 1.5 s took 13.5 s in 4 batches and 15.7 s in 2, which this
 * model gives (13.2 s and 15.6 s) with a start-up of 1.8 s.
 */
function expectedWallMs(batches: PlannedBatch[], startupMs: number): number {
  const longest = Math.max(0, ...batches.map((batch) => batch.expectedMs));
  return longest + batches.length * startupMs;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Plans a run on `parallels` free slots: every batch count from 1 to the slots (or the tests)
 * is packed (LPT) and its expected wall time computed from the tests' expected durations and
 * the measured start-up cost (startup-cost.ts); the least wins, the more batches on a tie. So a
 * run uses every free slot unless an extra batch's start-up costs more than it takes off the
 * longest batch, and a second run (durations known) takes fewer slots than its first only
 * where that is expected to end sooner. Batches are ordered by expected work,
 * longest first, so the longest is claimed first. One batch means an unsplit run.
 */
export function planRun(
  units: PlannedUnit[],
  parallels: number,
  startupMs = startupCost.estimate(),
): RunPlan {
  const sorted = [...units].sort((a, b) => b.expectedMs - a.expectedMs);
  const most = Math.max(1, Math.min(parallels, units.length));
  let best: { batches: PlannedBatch[]; wallMs: number } | null = null;
  let full: { batches: PlannedBatch[]; wallMs: number } | null = null;
  for (let count = 1; count <= most; count++) {
    const batches = pack(sorted, count);
    const wallMs = expectedWallMs(batches, startupMs);
    if (count === most) full = { batches, wallMs };
    if (!best || wallMs <= best.wallMs) best = { batches, wallMs };
  }
  const chosen = best as { batches: PlannedBatch[]; wallMs: number };
  const count = chosen.batches.length;
  const slots = `${parallels} free slot${parallels === 1 ? '' : 's'}`;
  const what = `${count} batch${count === 1 ? '' : 'es'} on ${slots}: expected ${seconds(chosen.wallMs)}`;
  let reason: string;
  if (full && count < full.batches.length) {
    reason = `${what}, against ${seconds(full.wallMs)} in ${full.batches.length}: a batch's start-up (${seconds(startupMs)}) costs more than it saves`;
  } else if (count < parallels) {
    reason = `${what}: the run has ${units.length} test${units.length === 1 ? '' : 's'}`;
  } else {
    reason = `${what}, every free slot`;
  }
  return {
    batches: chosen.batches
      .sort((a, b) => b.expectedMs - a.expectedMs)
      .map((batch) => ({ ...batch, expectedMs: Math.round(batch.expectedMs) })),
    reason,
  };
}

/** The batches of {@link planRun}. */
export function planBatches(
  units: PlannedUnit[],
  parallels: number,
  startupMs = startupCost.estimate(),
): PlannedBatch[] {
  return planRun(units, parallels, startupMs).batches;
}
