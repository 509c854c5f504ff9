import os from 'node:os';
import path from 'node:path';
import * as core from '@actions/core';
import { collectArtifacts, uploadArtifact } from './artifacts.ts';
import { StepdeckClient } from './client.ts';
import type { Inputs } from './inputs.ts';
import { outputsFor } from './outputs.ts';
import { report, writeJunit } from './report/index.ts';
import {
  type CommitState,
  setCommitStatus,
  stateOf,
  statusDescription,
  statusTarget,
} from './report/status.ts';
import {
  findPreviousResults,
  planRerun,
  type RerunPlan,
  resultsArtifactName,
  runAttempt,
  withCarriedOver,
  writeAttemptResults,
} from './rerun.ts';
import { failsStep, mergeRuns, type Results, runUrl, unfinishedStatus } from './results.ts';
import { gatingStatus, quarantineLine, withTriage } from './triage.ts';
import { trigger } from './trigger.ts';
import { failsOnVisualChanges, visualChangesLine } from './visual.ts';
import { waitForRuns } from './wait.ts';

/** What the main step saves for the post step: the runs it started, and whether it saw them end. */
export const state = { runIds: 'run-ids', done: 'done' } as const;

export const clientFor = (inputs: Inputs) =>
  new StepdeckClient({
    baseUrl: inputs.baseUrl,
    apiKey: inputs.apiKey,
    projectId: inputs.projectId,
    branchId: inputs.branchId,
    log: core.info,
  });

/** The action once its inputs are valid: trigger → wait → collect → report → outputs. */
export async function execute(inputs: Inputs, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { apiKey } = inputs;
  try {
    const client = clientFor(inputs);

    const rerun = await rerunPlan(inputs, env);
    const triggered = await trigger(
      client,
      rerun
        ? {
            testIds: rerun.testIds,
            tagId: undefined,
            config: inputs.config,
            metadata: inputs.metadata,
            environment: inputs.environment,
          }
        : inputs,
      core.info,
    );
    const runIds = triggered.runs.map((run) => run.runId);
    const runUrls = runIds.map((id) => runUrl(inputs.baseUrl, inputs.projectId, id));
    core.saveState(state.runIds, runIds.join(','));
    core.info(`Started ${runIds.length === 1 ? 'run' : 'runs'} ${runUrls.join(', ')}`);
    await commitStatus(inputs, env, 'pending', 'Stepdeck run started', runUrls[0]);
    if (!inputs.wait) {
      core.saveState(state.done, 'true');
      setOutputs(outputsFor({ runIds, runUrls }));
      return;
    }

    let lastLine = '';
    const waited = await waitForRuns(client, runIds, {
      timeoutMs: inputs.timeoutMs,
      pollIntervalMs: inputs.pollIntervalMs,
      log: core.info,
      onPoll: (runs) => {
        const line = runs.map((run) => `${run.id.slice(0, 8)} ${run.status}`).join(', ');
        if (line !== lastLine) core.info(line);
        lastLine = line;
      },
    });
    core.saveState(state.done, 'true');
    const results = withCarriedOver(
      await withTriage(
        client,
        mergeRuns(waited.runs, { ...inputs, timedOut: waited.timedOut, unfinished: waited.unfinished }),
        core.warning,
      ),
      rerun?.carried ?? [],
    );

    const name = inputs.artifactName ?? defaultArtifactName(runIds[0] ?? 'run', env);
    const dir = path.join(env.RUNNER_TEMP || os.tmpdir(), 'stepdeck', name);
    const collected = await collectArtifacts(client, waited.runs, results, {
      dir,
      mode: inputs.artifacts,
      log: core.warning,
      debug: core.debug,
    });
    const junitPath = writeJunit(results, dir);
    const uploaded =
      inputs.artifacts === 'none'
        ? undefined
        : await uploadArtifact(collected, { name, retentionDays: inputs.artifactRetentionDays, env });
    if (inputs.artifacts !== 'none' && !uploaded) core.info(`Artifacts kept in ${dir}`);

    await uploadAttemptResults(results, inputs, env);
    await report(results, inputs, { artifactUrl: uploaded?.url }, env);
    await commitStatus(inputs, env, stateOf(results.status), statusDescription(results), runUrls[0]);

    setOutputs(
      outputsFor({
        runIds,
        runUrls,
        results,
        reportPath: collected.reportPath,
        junitPath,
        artifactsPath: dir,
        uploaded,
      }),
    );
    const quarantined = quarantineLine(results);
    if (quarantined) core.notice(quarantined);
    const visual = visualChangesLine(results);
    if (visual && failsOnVisualChanges(results, inputs.visualChanges))
      core.setFailed(`Stepdeck: ${visual} (visual-changes: fail)`);
    else if (visual && inputs.visualChanges === 'warn') core.warning(visual);
    if (failsStep(gatingStatus(results), inputs.failOn)) {
      const failed = results.tests
        .filter((test) => test.status === 'failed' && test.triage !== 'quarantined')
        .map((test) => test.name);
      const stopped = results.tests.filter((test) => test.status === unfinishedStatus).length;
      core.setFailed(
        `Stepdeck run ${results.status}` +
          (results.note ? `: ${results.note}` : '') +
          (stopped > 0 ? ` (${stopped} ${stopped === 1 ? 'test' : 'tests'} not finished)` : '') +
          (failed.length > 0 ? `: ${failed.slice(0, 10).join(', ')}` : ''),
      );
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    core.setFailed(message.replaceAll(apiKey, '***'));
  }
}

/** What to trigger on a re-run attempt with `rerun: failed`; undefined runs the whole selection. */
async function rerunPlan(inputs: Inputs, env: NodeJS.ProcessEnv): Promise<RerunPlan | undefined> {
  const attempt = runAttempt(env);
  if (inputs.rerun === 'all' || attempt <= 1) return undefined;
  const lookup = await findPreviousResults({
    token: inputs.githubToken,
    commentKey: inputs.commentKey,
    env,
    dir: path.join(env.RUNNER_TEMP || os.tmpdir(), 'stepdeck', `previous-${attempt}`),
  });
  if (!lookup.found) {
    // A problem (no `actions: read`, GitHub failing) is worth a warning; nothing to find is not.
    (lookup.problem ? core.warning : core.info)(
      `Attempt ${attempt}, rerun: failed: running every test, ${lookup.reason}`,
    );
    return undefined;
  }
  const planned = planRerun(lookup.found);
  if (!planned.plan) {
    core.info(`Attempt ${attempt}, rerun: failed: running every test, ${planned.reason}`);
    return undefined;
  }
  core.info(
    `Attempt ${attempt}, rerun: failed: running ${planned.plan.testIds.length} test(s) that failed or did not finish in attempt ${lookup.found.attempt}; ${planned.plan.carried.length} earlier pass(es) carried over`,
  );
  return planned.plan;
}

/** This attempt's results as a small artifact of its own, for the next attempt to read. */
async function uploadAttemptResults(results: Results, inputs: Inputs, env: NodeJS.ProcessEnv) {
  if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL) return;
  const attempt = runAttempt(env);
  const dir = path.join(env.RUNNER_TEMP || os.tmpdir(), 'stepdeck', `results-${attempt}`);
  const file = writeAttemptResults(dir, results, { attempt, commentKey: inputs.commentKey });
  try {
    await uploadArtifact(
      { dir, files: [file], reportPath: undefined },
      {
        name: resultsArtifactName(inputs.commentKey, attempt),
        retentionDays: inputs.artifactRetentionDays,
        env,
      },
    );
  } catch (error) {
    core.warning(`Could not upload the results for a later re-run: ${(error as Error).message}`);
  }
}

/** The commit status when `commit-status: true`; never fails the step. */
async function commitStatus(
  inputs: Inputs,
  env: NodeJS.ProcessEnv,
  state: CommitState,
  description: string,
  targetUrl: string | undefined,
): Promise<void> {
  if (!inputs.commitStatus || !targetUrl) return;
  const target = statusTarget(env);
  if (!inputs.githubToken || !target) {
    core.warning('commit-status: no github-token or no repository/commit in the environment, skipped');
    return;
  }
  try {
    await setCommitStatus({
      token: inputs.githubToken,
      target,
      context: inputs.commentKey,
      state,
      description,
      targetUrl,
      warn: core.warning,
    });
  } catch (error) {
    core.warning(`Could not set the commit status: ${(error as Error).message}`);
  }
}

function setOutputs(outputs: Record<string, string>) {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

/** Unique per run: the job, the (first) service run id and the attempt. */
export function defaultArtifactName(runId: string, env: NodeJS.ProcessEnv = process.env): string {
  return `stepdeck-${env.GITHUB_JOB || 'run'}-${runId.slice(0, 8)}-${env.GITHUB_RUN_ATTEMPT || '1'}`;
}
