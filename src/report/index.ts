import fs from 'node:fs';
import path from 'node:path';
import * as core from '@actions/core';
import type { Inputs } from '../inputs.ts';
import { runAttempt } from '../rerun.ts';
import type { Results } from '../results.ts';
import { aggregateGroup, aggregateRow, upsertAggregateRow } from './aggregate.ts';
import { annotationsFor } from './annotations.ts';
import { pullRequestFromEnv, upsertComment } from './comment.ts';
import { junitXml } from './junit.ts';
import { commentMaxChars, resultsMarkdown, summaryMaxChars } from './markdown.ts';

/** Writes the job summary, unless `$GITHUB_STEP_SUMMARY` is absent (local runs, other CIs). */
export async function writeJobSummary(
  markdown: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (!env.GITHUB_STEP_SUMMARY) {
    core.info('No $GITHUB_STEP_SUMMARY: skipping the job summary');
    return false;
  }
  await core.summary.addRaw(markdown).write();
  return true;
}

export function writeJunit(results: Results, dir: string): string {
  const file = path.join(dir, 'junit.xml');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, junitXml(results));
  return file;
}

/** Job summary, annotations and PR comment: every report made from one markdown document. */
export async function report(
  results: Results,
  inputs: Inputs,
  links: { artifactUrl?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const context = { artifactUrl: links.artifactUrl, title: `Stepdeck ${inputs.commentKey}` };
  // Same content, two budgets: 1 MiB per job summary, 65536 characters per comment.
  const markdown = resultsMarkdown(results, { ...context, maxChars: commentMaxChars });
  if (inputs.summary)
    await writeJobSummary(resultsMarkdown(results, { ...context, maxChars: summaryMaxChars }), env);
  if (inputs.annotations)
    for (const { message, ...properties } of annotationsFor(results)) core.error(message, properties);
  if (inputs.prComment === 'off') return;
  const pr = pullRequestFromEnv(env);
  if (!pr) return;
  if (!inputs.githubToken) {
    core.warning('No github-token: skipping the PR comment');
    return;
  }
  try {
    const result =
      inputs.commentMode === 'aggregate'
        ? await upsertAggregateRow({
            token: inputs.githubToken,
            pr,
            group: aggregateGroup(inputs.commentKey),
            workflowRunId: Number(env.GITHUB_RUN_ID) || 0,
            row: aggregateRow(results, {
              key: inputs.commentKey,
              runUrl: results.runs[0]?.url ?? '',
              attempt: runAttempt(env),
            }),
            log: core.info,
          })
        : await upsertComment({
            token: inputs.githubToken,
            pr,
            key: inputs.commentKey,
            markdown,
            mode: inputs.prComment,
          });
    if (result.kind === 'fallback')
      core.warning(`Could not comment: ${result.reason}. The results:\n${markdown}`);
    else if (result.kind === 'skipped') core.info(`PR comment not written: ${result.reason}`);
    else core.info(`PR comment ${result.kind}: ${result.url}`);
  } catch (error) {
    core.warning(`Could not comment on the pull request: ${(error as Error).message}`);
  }
}
