// Light on purpose (no zod at load time): read while the inputs are checked.
import type { RunSource } from '@stepdeck/contract';

/**
 * Where the run's code came from, from the GitHub Actions variables (absent elsewhere): the
 * commit, the branch (a pull request's head branch), its base branch and number. The service
 * stores it with the run; its history and triage compare branches with it.
 */
export function runSourceOf(env: NodeJS.ProcessEnv): RunSource {
  const source: RunSource = {};
  const value = (name: string) => env[name]?.trim() || undefined;
  const commitSha = value('GITHUB_SHA');
  if (commitSha) source.commitSha = commitSha;
  const ref = value('GITHUB_HEAD_REF') ?? value('GITHUB_REF_NAME') ?? value('GITHUB_REF');
  if (ref) source.ref = ref;
  const baseRef = value('GITHUB_BASE_REF');
  if (baseRef) source.baseRef = baseRef;
  const pullRequest = /^refs\/pull\/(\d+)\//.exec(value('GITHUB_REF') ?? '')?.[1];
  if (pullRequest) source.pullRequest = Number(pullRequest);
  return source;
}
