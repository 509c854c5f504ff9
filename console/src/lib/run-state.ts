import {
  type RunArtifact,
  type RunMetadata,
  type RunStatus,
  type RunTestResult,
  runMetadata,
  type TestRun,
  terminalRunStatuses,
} from '@stepdeck/contract';

/** Still moving: the page keeps polling and offers Cancel. */
export const isActive = (status: RunStatus): boolean => !terminalRunStatuses.includes(status);

/** How often to refresh a run or a list while something is active (ms), or never. */
export const refreshInterval = (statuses: readonly RunStatus[], everyMs = 1000): number | false =>
  statuses.some(isActive) ? everyMs : false;

const outcomeRank: Record<string, number> = { failed: 0, timedOut: 0, interrupted: 1, flaky: 2 };

/** Failed tests first (then flaky, then the rest), otherwise in the order the run reported them. */
export function failedFirst(results: readonly RunTestResult[]): RunTestResult[] {
  const rank = (result: RunTestResult) => outcomeRank[result.status] ?? (result.flaky ? 2 : 3);
  return results
    .map((result, index) => ({ result, index }))
    .sort((a, b) => rank(a.result) - rank(b.result) || a.index - b.index)
    .map(({ result }) => result);
}

export const isFailure = (result: RunTestResult): boolean =>
  result.status === 'failed' || result.status === 'timedOut' || result.status === 'interrupted';

/** Retries made: attempts beyond the first. */
export const retriesOf = (result: RunTestResult): number => Math.max(0, (result.attempts ?? 1) - 1);

export function parseMetadata(metadata: Record<string, unknown> | null): RunMetadata {
  const parsed = runMetadata.safeParse(metadata ?? {});
  return parsed.success ? parsed.data : {};
}

/** Who started a run, in words: `API key “ci”`, `schedule “nightly”`, `ada@example.com`. */
export function triggerLabel(metadata: RunMetadata, scheduleName?: string | null): string {
  const trigger = metadata.trigger;
  if (!trigger) return scheduleName ? `schedule “${scheduleName}”` : 'unknown';
  const name = trigger.name ?? (trigger.type === 'schedule' ? scheduleName : undefined);
  switch (trigger.type) {
    case 'apiKey':
      return name ? `API key “${name}”` : 'API key';
    case 'schedule':
      return name ? `schedule “${name}”` : 'schedule';
    case 'manual':
      return name ? `${name} (console)` : 'console user';
    default:
      return trigger.type;
  }
}

/** The artifacts that belong to one test of the run, by kind. */
export function artifactsOfTest(artifacts: readonly RunArtifact[], testName: string) {
  const own = artifacts.filter((artifact) => artifact.testName === testName);
  return {
    trace: own.find((artifact) => artifact.type === 'trace'),
    images: own.filter((artifact) => artifact.type === 'image'),
    videos: own.filter((artifact) => artifact.type === 'video'),
  };
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The stored test a result belongs to (a report names a test by its id; not when it could not). */
export const testIdOf = (result: Pick<RunTestResult, 'testId'>): string | undefined =>
  uuidPattern.test(result.testId) ? result.testId : undefined;

/** Tests that failed most often and ran slowest over a set of finished runs. */
export function testLeaders(
  reports: ReadonlyArray<{ testResults: readonly RunTestResult[] }>,
  limit = 5,
): {
  failing: Array<{ name: string; testId: string | undefined; failures: number; runs: number }>;
  slowest: Array<{ name: string; testId: string | undefined; avgMs: number; runs: number }>;
} {
  const byName = new Map<
    string,
    { testId: string | undefined; failures: number; runs: number; totalMs: number }
  >();
  for (const report of reports) {
    for (const result of report.testResults) {
      const entry = byName.get(result.name) ?? {
        testId: testIdOf(result),
        failures: 0,
        runs: 0,
        totalMs: 0,
      };
      entry.runs += 1;
      entry.totalMs += result.duration;
      if (isFailure(result)) entry.failures += 1;
      byName.set(result.name, entry);
    }
  }
  const entries = [...byName.entries()];
  return {
    failing: entries
      .filter(([, entry]) => entry.failures > 0)
      .map(([name, entry]) => ({ name, testId: entry.testId, failures: entry.failures, runs: entry.runs }))
      .sort((a, b) => b.failures - a.failures || a.name.localeCompare(b.name))
      .slice(0, limit),
    slowest: entries
      .map(([name, entry]) => ({
        name,
        testId: entry.testId,
        avgMs: Math.round(entry.totalMs / entry.runs),
        runs: entry.runs,
      }))
      .sort((a, b) => b.avgMs - a.avgMs || a.name.localeCompare(b.name))
      .slice(0, limit),
  };
}

/** Runs per day (oldest first) with how many failed and their mean duration, for the dashboard's charts. */
export function runsPerDay(runs: readonly TestRun[], dayOf: (iso: string) => string) {
  const days = new Map<string, { total: number; failed: number; durationSum: number; timed: number }>();
  for (const run of runs) {
    const day = dayOf(run.createdAt);
    const entry = days.get(day) ?? { total: 0, failed: 0, durationSum: 0, timed: 0 };
    entry.total += 1;
    if (run.status === 'failed') entry.failed += 1;
    if (run.duration !== null) {
      entry.durationSum += run.duration;
      entry.timed += 1;
    }
    days.set(day, entry);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, entry]) => ({
      day,
      total: entry.total,
      failed: entry.failed,
      avgDurationMs: entry.timed ? Math.round(entry.durationSum / entry.timed) : null,
    }));
}
