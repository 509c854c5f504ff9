import fs from 'node:fs';
import path from 'node:path';
import { isFailedTest, type Results, type TestOutcome } from './results.ts';

/**
 * Re-run only what failed: every attempt uploads a small results artifact; attempt N > 1 reads
 * the newest earlier attempt's one and triggers only the tests that failed or did not finish.
 */

export const resultsFileName = 'stepdeck-results.json';

/** What an attempt leaves for the next one (only what selecting and reporting needs). */
export interface AttemptResults {
  version: 1;
  attempt: number;
  commentKey: string;
  status: string;
  tests: Array<{
    testId: string;
    name: string;
    status: string;
    flaky: boolean;
    durationMs: number;
    /** The attempt that ran it when it was carried over from an earlier attempt. */
    attempt: number;
  }>;
}

/** Artifact names allow no `/ \ : < > | * ? "`; the comment key tells matrix entries apart. */
export const resultsArtifactPrefix = (commentKey: string) =>
  `stepdeck-results-${commentKey.replace(/[/\\:<>|*?"\s]+/g, '_')}-`;

export const resultsArtifactName = (commentKey: string, attempt: number) =>
  `${resultsArtifactPrefix(commentKey)}${attempt}`;

export const runAttempt = (env: NodeJS.ProcessEnv) => {
  const attempt = Number.parseInt(env.GITHUB_RUN_ATTEMPT ?? '1', 10);
  return Number.isFinite(attempt) && attempt > 0 ? attempt : 1;
};

/** Writes this attempt's results (ran now and carried over) into `dir`; returns the file. */
export function writeAttemptResults(
  dir: string,
  results: Results,
  context: { attempt: number; commentKey: string },
): string {
  const content: AttemptResults = {
    version: 1,
    attempt: context.attempt,
    commentKey: context.commentKey,
    status: results.status,
    tests: results.tests.map((test) => ({
      testId: test.testId,
      name: test.name,
      status: test.status,
      flaky: test.flaky,
      durationMs: test.durationMs,
      attempt: test.carriedFromAttempt ?? context.attempt,
    })),
  };
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, resultsFileName);
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
}

export type PreviousLookup =
  | { found: AttemptResults }
  | {
      found: undefined;
      reason: string;
      /** Something went wrong (a token without `actions: read`, GitHub down) rather than nothing to find. */
      problem?: boolean;
    };

/** Upper bound of the whole lookup: a re-run never waits longer than this before running everything. */
export const lookupDeadlineMs = 60_000;

/** Rejects with `message` once `ms` have passed; the timer never keeps the process alive. */
function deadline(ms: number, message: string): { promise: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/** Why the artifact listing failed, in words that say what to change. */
function listingProblem(error: unknown): string {
  const status = (error as { status?: number }).status;
  const message = (error as Error).message;
  if (status === 401 || status === 403 || status === 404)
    return `the github-token cannot list this workflow run's artifacts (${status} ${message}): give the job "permissions: actions: read", or set "rerun: all"`;
  return `could not list this workflow run's artifacts (${status ? `${status} ` : ''}${message})`;
}

/**
 * Finds the newest earlier attempt's results artifact of this workflow run (listed and
 * downloaded through the GitHub API with the token: needs `actions: read`).
 *
 * Bounded: the listing is one request per page, never retried (@actions/artifact's own listing
 * retries 5xx five times with growing pauses, close to a minute), each request and the whole
 * lookup are cut at `deadlineMs`, and every failure becomes a reason to run everything.
 */
export async function findPreviousResults(options: {
  token: string | undefined;
  commentKey: string;
  env: NodeJS.ProcessEnv;
  dir: string;
  deadlineMs?: number;
}): Promise<PreviousLookup> {
  const { env } = options;
  const attempt = runAttempt(env);
  if (attempt <= 1) return { found: undefined, reason: 'first attempt' };
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const workflowRunId = Number(env.GITHUB_RUN_ID);
  if (!options.token || !owner || !repo || !Number.isInteger(workflowRunId))
    return { found: undefined, reason: 'no github-token or no repository/run id in the environment' };
  const deadlineMs = options.deadlineMs ?? lookupDeadlineMs;
  const overall = deadline(
    deadlineMs,
    `the lookup of the earlier attempt's results took longer than ${Math.round(deadlineMs / 1000)} s`,
  );
  try {
    return await Promise.race([
      lookup({
        ...options,
        token: options.token,
        apiUrl: env.GITHUB_API_URL,
        owner,
        repo,
        workflowRunId,
        attempt,
        deadlineMs,
      }),
      overall.promise,
    ]);
  } catch (error) {
    return { found: undefined, reason: (error as Error).message, problem: true };
  } finally {
    overall.clear();
  }
}

async function lookup(options: {
  token: string;
  commentKey: string;
  dir: string;
  /** GHES: GITHUB_API_URL; github.com when unset. */
  apiUrl: string | undefined;
  owner: string;
  repo: string;
  workflowRunId: number;
  attempt: number;
  deadlineMs: number;
}): Promise<PreviousLookup> {
  const { owner, repo, workflowRunId, attempt } = options;
  const { getOctokit } = await import('@actions/github');
  // No retry plugin here (getOctokit adds none): a 403 answers at once, a 5xx is reported.
  const octokit = getOctokit(options.token, {
    ...(options.apiUrl ? { baseUrl: options.apiUrl } : {}),
    request: { signal: AbortSignal.timeout(options.deadlineMs) },
  });
  let artifacts: Array<{ id: number; name: string }>;
  try {
    artifacts = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, {
      owner,
      repo,
      run_id: workflowRunId,
      per_page: 100,
    });
  } catch (error) {
    return { found: undefined, reason: listingProblem(error), problem: true };
  }
  const prefix = resultsArtifactPrefix(options.commentKey);
  const earlier = artifacts
    .filter((artifact) => artifact.name.startsWith(prefix))
    .map((artifact) => ({ ...artifact, attempt: Number(artifact.name.slice(prefix.length)) }))
    .filter((artifact) => Number.isInteger(artifact.attempt) && artifact.attempt < attempt)
    .sort((a, b) => b.attempt - a.attempt);
  const newest = earlier[0];
  if (!newest) return { found: undefined, reason: 'no results of an earlier attempt were found' };
  try {
    fs.mkdirSync(options.dir, { recursive: true });
    const { DefaultArtifactClient } = await import('@actions/artifact');
    const findBy = { token: options.token, workflowRunId, repositoryOwner: owner, repositoryName: repo };
    await new DefaultArtifactClient().downloadArtifact(newest.id, { path: options.dir, findBy });
    const parsed = JSON.parse(
      fs.readFileSync(path.join(options.dir, resultsFileName), 'utf8'),
    ) as AttemptResults;
    if (parsed.version !== 1 || !Array.isArray(parsed.tests))
      return {
        found: undefined,
        reason: `the results of attempt ${newest.attempt} are unreadable`,
        problem: true,
      };
    return { found: parsed };
  } catch (error) {
    return {
      found: undefined,
      reason: `could not read the results of attempt ${newest.attempt} (${(error as Error).message})`,
      problem: true,
    };
  }
}

export interface RerunPlan {
  /** Test ids to trigger now. */
  testIds: string[];
  /** Earlier passes (and skips) reported as carried over. */
  carried: AttemptResults['tests'];
}

/**
 * Only what failed or did not finish runs again. Undefined (run everything) when the earlier
 * attempt recorded no test at all, or nothing failed in it (a "re-run all jobs").
 */
export function planRerun(
  previous: AttemptResults,
): { plan: RerunPlan } | { plan: undefined; reason: string } {
  if (previous.tests.length === 0)
    return {
      plan: undefined,
      reason: `attempt ${previous.attempt} recorded no test results (${previous.status})`,
    };
  const again = previous.tests.filter((test) => isFailedTest(test));
  if (again.length === 0) return { plan: undefined, reason: `nothing failed in attempt ${previous.attempt}` };
  return {
    plan: {
      testIds: [...new Set(again.map((test) => test.testId))],
      carried: previous.tests.filter((test) => !isFailedTest(test)),
    },
  };
}

/** Adds the carried-over tests to this attempt's results (counts included). */
export function withCarriedOver(results: Results, carried: AttemptResults['tests']): Results {
  if (carried.length === 0) return results;
  const tests: TestOutcome[] = carried.map((test) => ({
    runId: '',
    testId: test.testId,
    name: test.name,
    status: test.status,
    durationMs: test.durationMs,
    errorMessage: null,
    errorLocation: null,
    failedStep: null,
    expected: null,
    received: null,
    errorDetail: null,
    flaky: test.flaky,
    carriedFromAttempt: test.attempt,
  }));
  const stats = { ...results.stats };
  for (const test of carried) {
    stats.total += 1;
    if (test.status === 'skipped') stats.skipped += 1;
    else stats.passed += 1;
    if (test.flaky) stats.flaky += 1;
  }
  return { ...results, stats, tests: [...results.tests, ...tests], carriedOver: carried.length };
}
