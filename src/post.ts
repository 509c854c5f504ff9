import * as core from '@actions/core';
import { clientFor, state } from './action.ts';
import { readInputs } from './main.ts';

/**
 * The post step (`post-if: cancelled()`): cancels the remote runs the main step started and
 * did not see to the end. Nothing to do when the wait finished or nothing was triggered.
 */
export async function run(): Promise<void> {
  const runIds = core.getState(state.runIds).split(',').filter(Boolean);
  if (runIds.length === 0 || core.getState(state.done) === 'true') return;
  try {
    const client = clientFor(await readInputs());
    for (const runId of runIds) {
      try {
        const result = await client.cancel(runId);
        core.info(`Job cancelled: cancelled Stepdeck run ${runId} (${result.message})`);
      } catch (error) {
        core.warning(`Could not cancel Stepdeck run ${runId}: ${(error as Error).message}`);
      }
    }
  } catch (error) {
    core.warning(`Could not cancel the Stepdeck runs: ${(error as Error).message}`);
  }
}
