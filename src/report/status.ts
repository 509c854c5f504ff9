import fs from 'node:fs';
import type { Outcome } from '../inputs.ts';
import type { Results } from '../results.ts';
import { formatDuration } from './markdown.ts';

export type CommitState = 'pending' | 'success' | 'failure' | 'error';

/** The commit a status belongs on: the PR head for pull_request events, else GITHUB_SHA. */
export function statusTarget(
  env: NodeJS.ProcessEnv = process.env,
): { owner: string; repo: string; sha: string } | undefined {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo) return undefined;
  let sha = env.GITHUB_SHA;
  if ((env.GITHUB_EVENT_NAME ?? '').startsWith('pull_request') && env.GITHUB_EVENT_PATH)
    try {
      const event = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as {
        pull_request?: { head?: { sha?: string } };
      };
      sha = event.pull_request?.head?.sha ?? sha;
    } catch {}
  return sha ? { owner, repo, sha } : undefined;
}

export const stateOf = (status: Outcome): CommitState =>
  status === 'passed' ? 'success' : status === 'failed' ? 'failure' : 'error';

/** One line of counts, at most 140 characters (GitHub's limit for a status description). */
export function statusDescription(results: Results): string {
  const { stats } = results;
  const parts = [
    stats.failed > 0 && `${stats.failed} failed`,
    `${stats.passed} passed`,
    stats.flaky > 0 && `${stats.flaky} flaky`,
    stats.skipped > 0 && `${stats.skipped} skipped`,
  ].filter(Boolean);
  const text = `${results.status}: ${parts.join(', ')} of ${stats.total} in ${formatDuration(results.durationMs)}`;
  return text.length <= 140 ? text : `${text.slice(0, 139)}…`;
}

/**
 * Sets a commit status (context `stepdeck/<comment key>`) whose Details link is the run page.
 * A token without `statuses: write` gives a warning, not a failure. GHES: GITHUB_API_URL.
 */
export async function setCommitStatus(options: {
  token: string;
  target: { owner: string; repo: string; sha: string };
  context: string;
  state: CommitState;
  description: string;
  targetUrl: string;
  warn: (message: string) => void;
}): Promise<boolean> {
  const { getOctokit } = await import('@actions/github');
  try {
    await getOctokit(options.token).rest.repos.createCommitStatus({
      ...options.target,
      state: options.state,
      context: `stepdeck/${options.context}`.slice(0, 255),
      description: options.description.slice(0, 140),
      target_url: options.targetUrl,
    });
    return true;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 404 || status === 401 || status === 422) {
      options.warn(
        `Could not set the commit status (${status}): the token needs the statuses: write permission`,
      );
      return false;
    }
    throw error;
  }
}
