import { type TestRunDetail, terminalRunStatuses } from '@stepdeck/contract';
import type { StepdeckClient } from './client.ts';

export interface WaitOptions {
  timeoutMs: number;
  pollIntervalMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onPoll?: (runs: readonly TestRunDetail[]) => void;
  log?: (message: string) => void;
}

export interface WaitResult {
  runs: TestRunDetail[];
  /** The deadline passed before every run ended; the unfinished runs were cancelled. */
  timedOut: boolean;
  /**
   * The tests of each run the deadline cancelled (by run id), so that the reports can list
   * them as not finished rather than show an empty, green-looking run.
   */
  unfinished?: Map<string, Array<{ testId: string; testName: string }>>;
}

export const isTerminal = (status: string) => (terminalRunStatuses as readonly string[]).includes(status);

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls every unfinished run once per interval (one GET per run and poll) until all are
 * terminal or the wall-clock deadline passes; at the deadline the unfinished runs are cancelled.
 */
export async function waitForRuns(
  client: StepdeckClient,
  runIds: readonly string[],
  options: WaitOptions,
): Promise<WaitResult> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepReal;
  const deadline = now() + options.timeoutMs;
  const latest = new Map<string, TestRunDetail>();
  for (;;) {
    for (const runId of runIds) {
      const known = latest.get(runId);
      if (known && isTerminal(known.status)) continue;
      latest.set(runId, await client.getRun(runId));
    }
    const runs = runIds.map((id) => latest.get(id) as TestRunDetail);
    options.onPoll?.(runs);
    if (runs.every((run) => isTerminal(run.status))) return { runs, timedOut: false };
    const left = deadline - now();
    if (left <= 0) break;
    await sleep(Math.min(options.pollIntervalMs, left));
  }
  const unfinished = runIds.filter((id) => !isTerminal(latest.get(id)?.status ?? 'pending'));
  const tests = new Map<string, Array<{ testId: string; testName: string }>>();
  for (const runId of unfinished) {
    try {
      const result = await client.cancel(runId);
      options.log?.(`Deadline reached: cancelled run ${runId} (${result.message})`);
    } catch (error) {
      // 400: it ended meanwhile; the refresh below reads its real state.
      options.log?.(`Deadline reached: could not cancel run ${runId}: ${(error as Error).message}`);
    }
    latest.set(runId, await client.getRun(runId));
    try {
      tests.set(runId, await client.runTests(runId));
    } catch (error) {
      tests.set(runId, []);
      options.log?.(`Could not list the tests of run ${runId}: ${(error as Error).message}`);
    }
  }
  return { runs: runIds.map((id) => latest.get(id) as TestRunDetail), timedOut: true, unfinished: tests };
}
