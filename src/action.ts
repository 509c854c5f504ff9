import os from 'node:os';
import path from 'node:path';
import * as core from '@actions/core';
import { collectArtifacts, uploadArtifact } from './artifacts.ts';
import { StepdeckClient } from './client.ts';
import type { Inputs } from './inputs.ts';
import { state } from './main.ts';
import { outputsFor } from './outputs.ts';
import { report, writeJunit } from './report/index.ts';
import {
  type CommitState,
  setCommitStatus,
  stateOf,
  statusDescription,
  statusTarget,
} from './report/status.ts';
import { failsStep, mergeRuns, runUrl } from './results.ts';
import { trigger } from './trigger.ts';
import { waitForRuns } from './wait.ts';

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

    const triggered = await trigger(client, inputs, core.info);
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
    const results = mergeRuns(waited.runs, { ...inputs, timedOut: waited.timedOut });

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
    if (failsStep(results.status, inputs.failOn)) {
      const failed = results.tests.filter((test) => test.status === 'failed').map((test) => test.name);
      core.setFailed(
        `Stepdeck run ${results.status}` + (failed.length > 0 ? `: ${failed.slice(0, 10).join(', ')}` : ''),
      );
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    core.setFailed(message.replaceAll(apiKey, '***'));
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
