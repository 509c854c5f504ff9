import * as core from '@actions/core';

/** Placeholder until the action issue lands: fails clearly instead of doing nothing. */
export async function run(): Promise<void> {
  core.setFailed('The Stepdeck action is not implemented yet');
}
