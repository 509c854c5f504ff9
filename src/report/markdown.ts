import { isFailedTest, type Results } from '../results.ts';

const icons: Record<string, string> = {
  passed: '✅',
  failed: '❌',
  error: '💥',
  cancelled: '🚫',
  timeout: '⏱️',
};

export const formatDuration = (ms: number) => {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
};

/** Markdown-safe single table cell. */
export const cell = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>').replace(/</g, '&lt;');

export interface MarkdownContext {
  title?: string;
  artifactUrl?: string | undefined;
  /** Rows shown at most (the comment stays below GitHub's size limit). */
  maxRows?: number;
}

/** The one table used by the job summary and the PR comment: status, stats, links, tests (failed first). */
export function resultsMarkdown(results: Results, context: MarkdownContext = {}): string {
  const { stats } = results;
  const lines = [
    `### ${icons[results.status] ?? ''} ${context.title ?? 'Stepdeck'}: ${results.status}`,
    '',
    `**${stats.passed}** passed · **${stats.failed}** failed · **${stats.skipped}** skipped · **${stats.total}** total · ${formatDuration(results.durationMs)}`,
    '',
    results.runs.map((run) => `[run ${run.runId.slice(0, 8)}](${run.url}) (${run.status})`).join(' · ') +
      (context.artifactUrl ? ` · [artifacts](${context.artifactUrl})` : ''),
  ];
  for (const run of results.runs)
    if (run.runnerError)
      lines.push('', `> Runner error in run ${run.runId.slice(0, 8)}: ${cell(run.runnerError)}`);
  if (results.tests.length > 0) {
    const maxRows = context.maxRows ?? 200;
    lines.push('', '| Test | Status | Duration | Error | Location |', '|---|---|---|---|---|');
    for (const test of results.tests.slice(0, maxRows)) {
      const failed = isFailedTest(test);
      lines.push(
        `| ${cell(test.name)} | ${failed ? '❌' : test.status === 'skipped' ? '⏭️' : '✅'} ${test.status} | ${formatDuration(test.durationMs)} | ${cell(test.errorMessage ?? '')} | ${test.errorLocation ? `\`${cell(test.errorLocation)}\`` : ''} |`,
      );
    }
    if (results.tests.length > maxRows) lines.push('', `…and ${results.tests.length - maxRows} more tests.`);
  }
  return `${lines.join('\n')}\n`;
}
