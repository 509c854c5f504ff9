import type { LeftOutTest, RunConfig, RunSource } from '@stepdeck/contract';
import { ApiError, type StepdeckClient, type TriggeredRun } from './client.ts';

/** The spec's cap of active tests per remote run. */
export const maxTestsPerRun = 100;

export interface TriggerTarget {
  testIds: string[];
  tagId: string | undefined;
  config: RunConfig | undefined;
  /** Where the run's code came from, stored with each run. */
  metadata?: RunSource | undefined;
  /** The project's environment every run uses, by name. */
  environment?: string | undefined;
}

export interface Triggered {
  runs: TriggeredRun[];
  /** True when a single-test trigger hit 409 and attached to the run already active. */
  attached: boolean;
}

const overCap = (error: unknown) =>
  error instanceof ApiError && error.status === 400 && /\b100\b/.test(error.message);

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/**
 * Starts the run(s): one test → its own endpoint (409 attaches to the active run); several
 * ids or a tag → the bulk endpoint, split into runs of at most 100 tests when the selection
 * expands beyond the cap.
 */
export async function trigger(
  client: StepdeckClient,
  target: TriggerTarget,
  log: (message: string) => void,
): Promise<Triggered> {
  const triggered = await startRuns(client, target, log);
  // Said out loud: a directory or tag run takes active tests only.
  for (const run of triggered.runs) {
    const leftOut = run.leftOut ?? [];
    if (leftOut.length > 0) log(leftOutLine(run.runId, leftOut));
  }
  return triggered;
}

/**
 * "Run 1a2b3c4d left out 2 tests that are not active: Login (draft), Old flow (archived)";
 * a test left out for its browser says so: "Checkout (firefox not installed)".
 */
export function leftOutLine(runId: string, leftOut: LeftOutTest[]): string {
  const why = (test: LeftOutTest) =>
    test.reason === 'browser not installed' ? `${test.browser ?? 'browser'} not installed` : test.status;
  const named = leftOut.map((test) => `${test.name} (${why(test)})`).join(', ');
  const count = `${leftOut.length} test${leftOut.length === 1 ? '' : 's'}`;
  if (leftOut.some((test) => test.reason === 'browser not installed'))
    return `Run ${runId.slice(0, 8)} left out ${count}: ${named}. Mark a test active in the console to include it; install a browser with npx playwright install <browser> where the service runs.`;
  return `Run ${runId.slice(0, 8)} left out ${count} that ${leftOut.length === 1 ? 'is' : 'are'} not active: ${named}. Mark a test active in the console to include it.`;
}

async function startRuns(
  client: StepdeckClient,
  target: TriggerTarget,
  log: (message: string) => void,
): Promise<Triggered> {
  const { testIds, tagId, config, metadata, environment } = target;
  if (tagId) {
    try {
      return { runs: [await client.triggerBulk({ tagId }, config, metadata, environment)], attached: false };
    } catch (error) {
      if (!overCap(error)) throw error;
    }
    const leaves = await client.activeLeafTests({ tagId });
    log(
      `The tag selects ${leaves.length} active tests, more than ${maxTestsPerRun}: splitting into several runs`,
    );
    return { runs: await triggerChunks(client, leaves, config, log, metadata, environment), attached: false };
  }
  if (testIds.length === 1) {
    const testId = testIds[0] as string;
    try {
      return { runs: [await client.triggerTest(testId, config, metadata, environment)], attached: false };
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
      const active = await client.latestRun(testId);
      if (!active) throw error;
      log(`Test ${testId} already has an active run: attaching to run ${active.id} instead of starting one`);
      return { runs: [{ runId: active.id, status: active.status }], attached: true };
    }
  }
  const runs: TriggeredRun[] = [];
  const parts = chunk(testIds, maxTestsPerRun);
  if (parts.length > 1)
    log(
      `${testIds.length} test ids, more than ${maxTestsPerRun} per run: splitting into ${parts.length} runs`,
    );
  for (const part of parts) {
    try {
      runs.push(await client.triggerBulk({ testIds: part }, config, metadata, environment));
      continue;
    } catch (error) {
      if (!overCap(error)) throw error;
    }
    // Directories expand beyond the cap: trigger their active leaves in runs of at most 100.
    const leaves: string[] = [];
    for (const id of part) {
      const below = await client.activeLeafTests({ directoryId: id });
      leaves.push(...(below.length > 0 ? below : [id]));
    }
    const unique = [...new Set(leaves)];
    log(
      `The selection expands to ${unique.length} tests, more than ${maxTestsPerRun}: splitting into several runs`,
    );
    runs.push(...(await triggerChunks(client, unique, config, log, metadata, environment)));
  }
  return { runs, attached: false };
}

async function triggerChunks(
  client: StepdeckClient,
  ids: string[],
  config: RunConfig | undefined,
  log: (message: string) => void,
  metadata: RunSource | undefined,
  environment?: string | undefined,
): Promise<TriggeredRun[]> {
  const runs: TriggeredRun[] = [];
  const parts = chunk(ids, maxTestsPerRun);
  for (const [index, part] of parts.entries()) {
    const run = await client.triggerBulk({ testIds: part }, config, metadata, environment);
    log(`Run ${index + 1}/${parts.length}: ${run.runId} (${part.length} tests)`);
    runs.push(run);
  }
  return runs;
}
