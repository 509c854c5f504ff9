import { describe, expect, it } from 'vitest';
import {
  earnsQuarantine,
  earnsRelease,
  quarantineEvidence,
  wilsonLowerBound,
} from '../../../src/modules/history/health.ts';

describe('quarantine rules', () => {
  it('the Wilson lower bound asks for more passes the surer it must be', () => {
    expect(wilsonLowerBound(0, 0)).toBeNull();
    expect(wilsonLowerBound(10, 10)).toBeCloseTo(0.7225, 3);
    expect(wilsonLowerBound(15, 15)).toBeLessThan(0.8);
    expect(wilsonLowerBound(16, 16)).toBeGreaterThanOrEqual(0.8);
    expect(wilsonLowerBound(34, 34)).toBeLessThan(0.9);
    expect(wilsonLowerBound(35, 35)).toBeGreaterThanOrEqual(0.9);
    // A failure among the passes pushes the bound down.
    expect(wilsonLowerBound(19, 20)).toBeLessThan(wilsonLowerBound(16, 16) as number);
    expect(wilsonLowerBound(0, 5)).toBe(0);
  });

  it('counts only clean passes as evidence, and ignores skipped results', () => {
    const evidence = quarantineEvidence(['passed', 'flaky', 'skipped', 'passed', 'failed'], 0.8);
    expect(evidence).toMatchObject({ results: 4, passes: 2, releaseAt: 0.8 });
    expect(earnsRelease(evidence)).toBe(false);
    expect(earnsRelease(quarantineEvidence(Array(16).fill('passed'), 0.8))).toBe(true);
    expect(earnsRelease(quarantineEvidence([], 0.8))).toBe(false);
  });

  it('quarantines by itself only when on, over enough results, at the threshold', () => {
    const rule = { autoAt: 0.3, minResults: 10 };
    expect(earnsQuarantine({ flakeRate: 0.3, sampleSize: 10 }, rule)).toBe(true);
    expect(earnsQuarantine({ flakeRate: 0.29, sampleSize: 20 }, rule)).toBe(false);
    expect(earnsQuarantine({ flakeRate: 0.5, sampleSize: 9 }, rule)).toBe(false);
    expect(earnsQuarantine({ flakeRate: 1, sampleSize: 20 }, { autoAt: undefined, minResults: 10 })).toBe(
      false,
    );
    expect(earnsQuarantine({ flakeRate: null, sampleSize: 20 }, rule)).toBe(false);
  });
});
