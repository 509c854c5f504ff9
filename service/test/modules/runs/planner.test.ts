import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  estimateFromSteps,
  loadStartupCost,
  planBatches,
  planRun,
  storeStartupCost,
} from '../../../src/modules/runs/planner.ts';
import { StartupCost } from '../../../src/modules/runs/startup-cost.ts';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';

const units = (...ms: number[]) => ms.map((expectedMs, index) => ({ testId: `t${index}`, expectedMs }));

describe('planBatches', () => {
  it('packs longest first into the lightest batch, the heaviest batch first', () => {
    const planned = planBatches(units(8000, 8000, 4000, 4000, 4000, 4000, 1000, 1000), 2, 1000);
    expect(planned.map((batch) => batch.expectedMs)).toEqual([17000, 17000]);
    expect(planned[0]?.testIds.slice(0, 1)).toEqual(['t0']);
    expect(planned[1]?.testIds.slice(0, 1)).toEqual(['t1']);
  });

  it('uses every free slot when the start-up is small against the tests (a second run is never slower)', () => {
    // 16 × 1.5 s known, 4 free slots, start-up ~1 s: 4 batches of 4, not 2 of 8.
    const sixteen = units(...Array.from({ length: 16 }, () => 1500));
    const plan = planRun(sixteen, 4, 1000);
    expect(plan.batches.map((batch) => batch.testIds.length)).toEqual([4, 4, 4, 4]);
    expect(plan.batches.map((batch) => batch.expectedMs)).toEqual([6000, 6000, 6000, 6000]);
    expect(plan.reason).toBe('4 batches on 4 free slots: expected 10.0 s, every free slot');
    // Even with the 2.5 s fallback: 6 + 4 × 2.5 = 16 s, against 16.5 s in 3 and 17 s in 2.
    expect(planBatches(sixteen, 4, 2500)).toHaveLength(4);
    // No more batches than tests.
    expect(planRun(units(60_000, 60_000), 8, 1000)).toMatchObject({
      reason: '2 batches on 8 free slots: expected 62.0 s: the run has 2 tests',
    });
  });

  it('takes fewer batches when a start-up costs more than the extra batch saves', () => {
    // 8 tiny tests, 5 s start-up: 1 batch ends at 5.8 s, 2 at 10.4 s, 4 at 20.2 s.
    const tiny = units(...Array.from({ length: 8 }, () => 100));
    const plan = planRun(tiny, 4, 5000);
    expect(plan.batches).toHaveLength(1);
    expect(plan.batches[0]?.testIds).toHaveLength(8);
    expect(plan.reason).toBe(
      "1 batch on 4 free slots: expected 5.8 s, against 20.2 s in 4: a batch's start-up (5.0 s) costs more than it saves",
    );
    // Between: 8 × 2 s with 5 s start-ups: 2 batches (18 s) beat 1 (21 s), 3 (21 s) and 4 (24 s).
    expect(planBatches(units(...Array.from({ length: 8 }, () => 2000)), 4, 5000)).toHaveLength(2);
    // A tie goes to more batches: 2 × 3 s with 3 s start-ups is 9 s in 1 batch or in 2.
    expect(planBatches(units(3000, 3000), 4, 3000)).toHaveLength(2);
  });

  it('estimates a test without history from its steps and waits', () => {
    expect(estimateFromSteps([])).toBe(1000);
    expect(
      estimateFromSteps([
        { name: 'open', action: { name: 'goto', url: '/' } },
        {
          name: 'group',
          action: { name: 'group' },
          children: [{ name: 'w', action: { name: 'wait', ms: 1500 } }],
        },
      ] as never),
    ).toBe(1000 + 3 * 250 + 1500);
  });
});

describe('StartupCost', () => {
  it('falls back until it has measured, then takes the least recent overhead', () => {
    const cost = new StartupCost(2500, 3);
    expect(cost.estimate()).toBe(2500);
    cost.record({ durationMs: 10_000, testDurationsMs: [3000, 3000, 2000], workers: 1 });
    expect(cost.estimate()).toBe(2000);
    // A batch that started beside others waited for the CPU: not the cost of the next one.
    cost.record({ durationMs: 12_000, testDurationsMs: [4000, 4000], workers: 1 });
    cost.record({ durationMs: 3500, testDurationsMs: [2000], workers: 1 });
    expect(cost.estimate()).toBe(1500);
    // The window forgets the oldest: the machine may have become slower...
    cost.record({ durationMs: 9000, testDurationsMs: [6800], workers: 1 });
    cost.record({ durationMs: 9000, testDurationsMs: [6900], workers: 1 });
    cost.record({ durationMs: 9000, testDurationsMs: [6700], workers: 1 });
    expect(cost.measured).toBe(3);
    expect(cost.estimate()).toBe(2100);
    // ...but never above the fallback: more than that is a machine waiting for the CPU.
    cost.record({ durationMs: 9000, testDurationsMs: [5000], workers: 1 });
    cost.record({ durationMs: 9000, testDurationsMs: [5500], workers: 1 });
    cost.record({ durationMs: 9000, testDurationsMs: [6000], workers: 1 });
    expect(cost.estimate()).toBe(2500);
  });

  it('ignores executions that cannot tell the cost', () => {
    const cost = new StartupCost(2500);
    // Several workers: the tests overlap, their sum exceeds the wall time.
    cost.record({ durationMs: 5000, testDurationsMs: [3000, 3000], workers: 2 });
    cost.record({ durationMs: 5000, testDurationsMs: [], workers: 1 });
    cost.record({ durationMs: 5000, testDurationsMs: [6000], workers: 1 });
    expect(cost.measured).toBe(0);
    expect(cost.estimate()).toBe(2500);
  });
});

describe.each(databaseKinds)('the start-up cost a restarted runner plans with, on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ database });
  });
  afterAll(async () => t?.close());
  /** A runner process starting: its own StartupCost, seeded from the install's settings. */
  const started = async () => {
    const cost = new StartupCost(2500);
    await loadStartupCost(t.ctx.db, cost);
    return cost;
  };
  /** One single-worker execution whose wall exceeds its test by `overheadMs`. */
  const execution = (overheadMs: number) => ({
    durationMs: 6000 + overheadMs,
    testDurationsMs: [6000],
    workers: 1,
  });

  it('stores what one runner measured and plans the next one with it until that one measures', async () => {
    const first = await started();
    expect(first.estimate()).toBe(2500);
    // Nothing measured: nothing stored.
    await storeStartupCost(t.ctx.db, first);
    expect((await started()).estimate()).toBe(2500);
    first.record(execution(800));
    await storeStartupCost(t.ctx.db, first);

    const restarted = await started();
    expect(restarted.measured).toBe(0);
    expect(restarted.estimate()).toBe(800);
    // So its first run of 8 × 0.5 s on 4 slots is split as before the restart (2 batches, 3.6 s
    // expected), where the 2.5 s fallback would run it unsplit.
    const eight = units(...Array.from({ length: 8 }, () => 500));
    expect(planBatches(eight, 4, restarted.estimate())).toHaveLength(2);
    expect(planBatches(eight, 4, 2500)).toHaveLength(1);

    // Its own measurement replaces the seed, upwards too (another machine, another load).
    restarted.record(execution(1200));
    expect(restarted.estimate()).toBe(1200);
    await storeStartupCost(t.ctx.db, restarted);
    const third = await started();
    expect(third.estimate()).toBe(1200);
    // A move under a tenth is not written.
    third.record(execution(1150));
    await storeStartupCost(t.ctx.db, third);
    expect((await started()).estimate()).toBe(1200);
    // A stored cost is never planned with above the fallback.
    const capped = new StartupCost(500);
    capped.seed(9000);
    expect(capped.estimate()).toBe(500);
  });
});
