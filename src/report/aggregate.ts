import { randomUUID } from 'node:crypto';
import type { Outcome } from '../inputs.ts';
import type { Results } from '../results.ts';
import { isFailedTest } from '../results.ts';
import type { CommentResult, PullRequestContext } from './comment.ts';
import { cell, formatDuration } from './markdown.ts';

/**
 * `comment-mode: aggregate`: the jobs of one workflow run whose comment keys share a prefix
 * (the key up to its last `/`) keep one PR comment with a row per job. The rows live in the
 * comment itself, as JSON in a hidden HTML comment.
 *
 * GitHub's comment API has no conditional update, so two jobs finishing together can each
 * read the comment, add their row and write: the later write drops the earlier row. Every
 * writer therefore re-reads after a settle pause and writes again (with every row it has seen)
 * until the comment holds them; two comments created at once are merged into the older one.
 */

export interface AggregateRow {
  /** The job's full comment key. */
  key: string;
  status: Outcome;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  total: number;
  durationMs: number;
  runUrl: string;
  attempt: number;
  /** Names of the failed tests, at most five. */
  failedTests: string[];
  /** Set once per writer: tells its own row from an older copy. */
  nonce: string;
  writtenAt: number;
}

interface AggregateState {
  version: 1;
  group: string;
  workflowRunId: number;
  rows: Record<string, AggregateRow>;
}

/** The shared part of a comment key: up to its last `/` (the key itself without one). */
export const aggregateGroup = (key: string) => (key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : key);

const safe = (text: string) => text.replace(/--+>?/g, '-');
export const aggregateMarker = (group: string) => `<!-- stepdeck-aggregate: ${safe(group)} -->`;
const statePattern = /<!-- stepdeck-aggregate-state: ([A-Za-z0-9_-]+) -->/;

export function aggregateRow(
  results: Results,
  context: { key: string; runUrl: string; attempt: number },
): Omit<AggregateRow, 'nonce' | 'writtenAt'> {
  const failed = results.tests.filter(isFailedTest).map((test) => test.name);
  return {
    key: context.key,
    status: results.status,
    ...results.stats,
    durationMs: results.durationMs,
    runUrl: context.runUrl,
    attempt: context.attempt,
    failedTests: failed.slice(0, 5),
  };
}

export function parseAggregateState(body: string | undefined | null): AggregateState | undefined {
  const match = body?.match(statePattern);
  if (!match) return undefined;
  try {
    const state = JSON.parse(Buffer.from(match[1] as string, 'base64url').toString('utf8')) as AggregateState;
    return state.version === 1 && typeof state.rows === 'object' ? state : undefined;
  } catch {
    return undefined;
  }
}

const icons: Record<string, string> = {
  passed: '✅',
  failed: '❌',
  error: '💥',
  cancelled: '🚫',
  timeout: '⏱️',
};
const worstFirst: Outcome[] = ['error', 'timeout', 'failed', 'cancelled', 'passed'];

/** The comment: overall status and counts, one row per job (sorted by key), the hidden state. */
export function aggregateMarkdown(state: AggregateState): string {
  const rows = Object.values(state.rows).sort((a, b) => a.key.localeCompare(b.key));
  const status = worstFirst.find((outcome) => rows.some((row) => row.status === outcome)) ?? 'passed';
  const sum = (field: 'passed' | 'failed' | 'flaky' | 'skipped' | 'total') =>
    rows.reduce((total, row) => total + row[field], 0);
  const prefix = `${state.group}/`;
  const lines = [
    aggregateMarker(state.group),
    `### ${icons[status] ?? ''} Stepdeck ${state.group}: ${status} (${rows.length} ${rows.length === 1 ? 'job' : 'jobs'})`,
    '',
    `**${sum('passed')}** passed · **${sum('failed')}** failed · **${sum('skipped')}** skipped · ` +
      (sum('flaky') > 0 ? `**${sum('flaky')}** flaky · ` : '') +
      `**${sum('total')}** total`,
    '',
    '| Job | Status | Passed | Failed | Flaky | Skipped | Duration | Failed tests | Run |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const label = row.key.startsWith(prefix) ? row.key.slice(prefix.length) : row.key;
      const more =
        row.failed > row.failedTests.length ? ` and ${row.failed - row.failedTests.length} more` : '';
      const attempt = row.attempt > 1 ? ` (attempt ${row.attempt})` : '';
      return `| ${cell(label)} | ${icons[row.status] ?? ''} ${cell(row.status)}${attempt} | ${row.passed} | ${row.failed} | ${row.flaky} | ${row.skipped} | ${formatDuration(row.durationMs)} | ${cell(row.failedTests.join(', ') + more)} | [run](${row.runUrl}) |`;
    }),
    '',
    `<!-- stepdeck-aggregate-state: ${Buffer.from(JSON.stringify(state)).toString('base64url')} -->`,
  ];
  return `${lines.join('\n')}\n`;
}

export type AggregateResult = CommentResult | { kind: 'skipped'; reason: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Adds (or replaces) this job's row in the group's comment, creating it when absent.
 * `settleMs`: the pause before checking that the write held (plus up to as much again at random,
 * so that writers who collided do not collide again).
 */
export async function upsertAggregateRow(options: {
  token: string;
  pr: PullRequestContext;
  group: string;
  workflowRunId: number;
  row: Omit<AggregateRow, 'nonce' | 'writtenAt'>;
  settleMs?: number;
  maxTries?: number;
  log?: (message: string) => void;
}): Promise<AggregateResult> {
  const { getOctokit } = await import('@actions/github');
  const octokit = getOctokit(options.token);
  const { owner, repo, number } = options.pr;
  const marker = aggregateMarker(options.group);
  const settleMs = options.settleMs ?? 2000;
  const maxTries = options.maxTries ?? 8;
  const own: AggregateRow = { ...options.row, nonce: randomUUID(), writtenAt: Date.now() };
  /** Every row of this workflow run seen so far: written back if a stale write dropped it. */
  const seen = new Map<string, AggregateRow>();

  /** The group's comments (oldest first) and their rows merged; `newer` when a later run owns it. */
  const read = async () => {
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      owner,
      repo,
      issue_number: number,
      per_page: 100,
    });
    const mine = all.filter((comment) => comment.body?.includes(marker)).sort((a, b) => a.id - b.id);
    let newer = false;
    for (const comment of mine) {
      const state = parseAggregateState(comment.body);
      if (!state) continue;
      if (state.workflowRunId > options.workflowRunId) newer = true;
      if (state.workflowRunId !== options.workflowRunId) continue;
      for (const row of Object.values(state.rows)) {
        const known = seen.get(row.key);
        if (!known || row.writtenAt > known.writtenAt) seen.set(row.key, row);
      }
    }
    return { comments: mine, newer };
  };

  const holds = (body: string | undefined | null) => {
    const state = parseAggregateState(body);
    if (!state || state.workflowRunId !== options.workflowRunId) return false;
    if (state.rows[own.key]?.nonce !== own.nonce) return false;
    return [...seen.keys()].every((key) => key in state.rows);
  };

  try {
    let current = await read();
    for (let attempt = 1; attempt <= maxTries; attempt++) {
      if (current.newer)
        return { kind: 'skipped', reason: 'a later workflow run already owns the aggregate comment' };
      // Our own row wins over any copy of it; the others are the newest seen.
      seen.set(own.key, own);
      const state: AggregateState = {
        version: 1,
        group: options.group,
        workflowRunId: options.workflowRunId,
        rows: Object.fromEntries(seen),
      };
      const body = aggregateMarkdown(state);
      const [canonical, ...duplicates] = current.comments;
      try {
        if (canonical)
          await octokit.rest.issues.updateComment({ owner, repo, comment_id: canonical.id, body });
        else await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
      } catch (error) {
        // Deleted as a duplicate by another job meanwhile: read again and write to the survivor.
        if (!canonical || (error as { status?: number }).status !== 404) throw error;
        current = await read();
        continue;
      }
      // Comments created at the same moment: their rows are in ours now.
      for (const duplicate of duplicates)
        await octokit.rest.issues
          .deleteComment({ owner, repo, comment_id: duplicate.id })
          .catch((error: { status?: number }) => {
            if (error.status !== 404) throw error;
          });
      await sleep(settleMs + Math.random() * settleMs);
      current = await read();
      const [first, ...others] = current.comments;
      if (first && others.length === 0 && holds(first.body))
        return { kind: canonical ? 'updated' : 'created', id: first.id, url: first.html_url };
      if (current.newer)
        return { kind: 'skipped', reason: 'a later workflow run already owns the aggregate comment' };
      options.log?.(
        `Aggregate comment: another job wrote at the same time (try ${attempt} of ${maxTries}), writing again`,
      );
    }
    throw new Error(`the aggregate comment did not hold this job's row after ${maxTries} tries`);
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
