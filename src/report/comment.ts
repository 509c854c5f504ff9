import fs from 'node:fs';

export interface PullRequestContext {
  owner: string;
  repo: string;
  number: number;
  /** The head lives in another repository: the token may be read-only. */
  fork: boolean;
}

interface PullRequestEvent {
  pull_request?: {
    number: number;
    head?: { repo?: { full_name?: string } };
    base?: { repo?: { full_name?: string } };
  };
}

/** The pull request of a pull_request(_target) event, read from GITHUB_EVENT_PATH; undefined otherwise. */
export function pullRequestFromEnv(env: NodeJS.ProcessEnv = process.env): PullRequestContext | undefined {
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  if (!eventName.startsWith('pull_request') || !env.GITHUB_EVENT_PATH || !env.GITHUB_REPOSITORY)
    return undefined;
  let event: PullRequestEvent;
  try {
    event = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as PullRequestEvent;
  } catch {
    return undefined;
  }
  const pr = event.pull_request;
  if (!pr) return undefined;
  const [owner, repo] = env.GITHUB_REPOSITORY.split('/') as [string, string];
  const head = pr.head?.repo?.full_name;
  const base = pr.base?.repo?.full_name;
  return { owner, repo, number: pr.number, fork: Boolean(head && base && head !== base) };
}

export const commentMarker = (key: string) => `<!-- stepdeck-comment: ${key.replace(/--+>?/g, '-')} -->`;

export type CommentResult =
  | { kind: 'created' | 'updated'; id: number; url: string }
  | { kind: 'fallback'; reason: string };

/**
 * Posts the results on the PR: `update` edits the comment carrying this key's hidden marker
 * (found through every page of comments) or creates it; `new` always creates one. When the
 * token cannot write (a fork PR), returns a fallback instead of failing.
 */
export async function upsertComment(options: {
  token: string;
  pr: PullRequestContext;
  key: string;
  markdown: string;
  mode: 'update' | 'new';
}): Promise<CommentResult> {
  const { getOctokit } = await import('@actions/github');
  const octokit = getOctokit(options.token);
  const { owner, repo, number } = options.pr;
  const marker = commentMarker(options.key);
  const body = `${marker}\n${options.markdown}`;
  try {
    if (options.mode === 'update') {
      const comments = await octokit.paginate(octokit.rest.issues.listComments, {
        owner,
        repo,
        issue_number: number,
        per_page: 100,
      });
      const existing = comments.find((comment) => comment.body?.includes(marker));
      if (existing) {
        const { data } = await octokit.rest.issues.updateComment({
          owner,
          repo,
          comment_id: existing.id,
          body,
        });
        return { kind: 'updated', id: data.id, url: data.html_url };
      }
    }
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
    return { kind: 'created', id: data.id, url: data.html_url };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 404 || (options.pr.fork && status !== undefined && status < 500))
      return {
        kind: 'fallback',
        reason: `the token cannot comment on this pull request (${status}${options.pr.fork ? ', fork PR' : ''})`,
      };
    throw error;
  }
}
