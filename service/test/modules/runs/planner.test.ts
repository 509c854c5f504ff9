import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  estimateFromSteps,
  loadStartupCost,
  minWorkPerStartup,
  planBatches,
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

  it('uses no more batches than the work carries start-ups, slots or tests', () => {
    const sixteen = units(...Array.from({ length: 16 }, () => 1850));
    // 29.6 s of work: with 2.5 s start-ups, 2 batches carry 4 start-ups' worth each...
    expect(planBatches(sixteen, 4, 2500)).toHaveLength(Math.floor(29600 / (minWorkPerStartup * 2500)));
    // ...with the 1.4 s this process measured, the 4 slots are worth their start-ups.
    expect(planBatches(sixteen, 4, 1400)).toHaveLength(4);
    expect(planBatches(units(60_000, 60_000), 8, 1000)).toHaveLength(2);
    expect(planBatches(units(3000, 3000), 4, 2500)).toHaveLength(1);
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
    // So its first run of 16 × 1.5 s on 4 slots is split as before the restart.
    const sixteen = units(...Array.from({ length: 16 }, () => 1500));
    expect(planBatches(sixteen, 4, restarted.estimate())).toHaveLength(4);
    expect(planBatches(sixteen, 4, 2500)).toHaveLength(2);

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
