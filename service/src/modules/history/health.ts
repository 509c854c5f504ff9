import type { QuarantineEvidence } from '@stepdeck/contract';

/** z for a two-sided 95 % interval. */
const z95 = 1.959964;

/**
 * Lower bound of the 95 % Wilson score interval of a pass rate: how high the pass rate is,
 * at worst, given so few results. Ten passes out of ten give 0.72, not 1: a quarantined test
 * has to keep passing for a while before the bound clears a release threshold (0.8 takes 16
 * passes in a row, 0.9 takes 35). Null without results.
 */
export function wilsonLowerBound(passes: number, results: number): number | null {
  if (results <= 0) return null;
  const p = passes / results;
  const z2 = z95 * z95;
  const centre = p + z2 / (2 * results);
  const margin = z95 * Math.sqrt((p * (1 - p) + z2 / (4 * results)) / results);
  return Math.max(0, (centre - margin) / (1 + z2 / results));
}

/**
 * The evidence of a quarantined test's results since it went in: only clean passes count as
 * passes (a pass on retry is the flakiness the quarantine is about); skipped results do not count.
 */
export function quarantineEvidence(statuses: readonly string[], releaseAt: number): QuarantineEvidence {
  const decided = statuses.filter((status) => status !== 'skipped');
  const passes = decided.filter((status) => status === 'passed').length;
  return {
    results: decided.length,
    passes,
    passRateLowerBound: wilsonLowerBound(passes, decided.length),
    releaseAt,
  };
}

/** Whether the evidence lets the test out of quarantine. */
export const earnsRelease = (evidence: QuarantineEvidence): boolean =>
  evidence.passRateLowerBound !== null && evidence.passRateLowerBound >= evidence.releaseAt;

/**
 * Whether a test's flake rate over its latest results puts it in quarantine by itself: the
 * rule is on (`autoAt`), and judged on at least `minResults` results.
 */
export function earnsQuarantine(
  health: { flakeRate: number | null; sampleSize: number },
  rule: { autoAt: number | undefined; minResults: number },
): boolean {
  if (rule.autoAt === undefined || health.flakeRate === null) return false;
  return health.sampleSize >= rule.minResults && health.flakeRate >= rule.autoAt;
}
