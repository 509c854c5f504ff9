import { isFailedTest, isFlakyTest, type Results, type TestOutcome } from '../results.ts';
import { type VisualChange, visualChangesOf, visualReviewUrl } from '../visual.ts';
import { cut, failingStepText, failureTitle, fullMessage, healedText, reason } from './failure.ts';

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

/**
 * Text in a GitHub-markdown table cell, shown as written: one line, markdown and HTML
 * punctuation backslash-escaped (so `<br>` or `**` in a message stays visible text, never
 * markup, and never an entity such as `&lt;` shown literally), `|` escaped so the row keeps
 * its columns.
 */
export const cell = (value: string) =>
  value
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>|~!#]/g, (char) => `\\${char}`)
    .replace(/&/g, '&amp;');

/** Text inside an HTML element (the `<summary>` of a `<details>` block). */
const html = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\s+/g, ' ').trim();

/** A fenced code block that no backtick run inside `text` can close. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text.replace(/\r\n?/g, '\n')}\n${fence}`;
}

export interface MarkdownContext {
  title?: string;
  artifactUrl?: string | undefined;
  /**
   * Size budget: GitHub takes 65536 characters per PR comment and 1 MiB per job summary.
   * Past it, rows and details are left out with a line saying how many.
   */
  maxChars?: number;
  /** Characters of one failure's full message in its <details> block. */
  maxDetailChars?: number;
}

/** A comment's budget: 65536 characters less the hidden marker and a margin. */
export const commentMaxChars = 65_000;
/** A summary's budget: 1 MiB, counted in characters of up to 4 bytes each, less a margin. */
export const summaryMaxChars = 250_000;

const tableHead = ['| Test | Status | Failing step | Reason | Duration | Run |', '|---|---|---|---|---|---|'];

/** A failure as the service classes it against history (src/triage.ts), in the reader's words. */
const triageText: Record<NonNullable<TestOutcome['triage']>, string> = {
  new: '🆕 new',
  known: 'known: failing on the base branch too',
  flaky: 'flaky in recent runs',
  quarantined: '🔒 quarantined: does not fail the check',
};

function row(test: TestOutcome, runUrl: string | undefined): string {
  const failed = isFailedTest(test);
  const flaky = isFlakyTest(test);
  const status = failed
    ? `❌ ${cell(test.status)}`
    : flaky
      ? '⚠️ flaky'
      : test.status === 'skipped'
        ? '⏭️ skipped'
        : // Healed is never shown as a plain pass: the step passed only with another locator.
          `✅ ${cell(healedText(test) ?? test.status)}`;
  const carried =
    (test.carriedFromAttempt ? ` (attempt ${test.carriedFromAttempt}, carried over)` : '') +
    (failed && test.triage ? ` · ${triageText[test.triage]}` : '');
  const step = failed ? failingStepText(test) : '';
  const why = failed || flaky ? reason(test) : '';
  return `| ${cell(test.name)} | ${status}${carried} | ${cell(step)} | ${cell(why)} | ${formatDuration(test.durationMs)} | ${runUrl ? `[run](${runUrl})` : ''} |`;
}

function details(test: TestOutcome, maxChars: number): string {
  return [
    '<details>',
    `<summary>❌ ${html(failureTitle(test))}</summary>`,
    '',
    fenced(cut(fullMessage(test), maxChars)),
    '',
    '</details>',
  ].join('\n');
}

/**
 * The job summary and PR comment: status, counts, links, a short table (failed first, then
 * flaky, then the rest) and each failure's full message in a collapsible block, within a size
 * budget (failed rows first, then their details, then the other rows).
 */
export function resultsMarkdown(results: Results, context: MarkdownContext = {}): string {
  const { stats } = results;
  const maxChars = context.maxChars ?? commentMaxChars;
  const head = [
    `### ${icons[results.status] ?? ''} ${context.title ?? 'Stepdeck'}: ${results.status}`,
    '',
    `**${stats.passed}** passed · **${stats.failed}** failed · **${stats.skipped}** skipped · ` +
      (stats.flaky > 0 ? `**${stats.flaky}** flaky · ` : '') +
      `**${stats.total}** total · ${formatDuration(results.durationMs)}` +
      (results.carriedOver ? ` · **${results.carriedOver}** carried over from an earlier attempt` : ''),
    ...(results.note ? ['', `**${cell(results.note.replace(/^./, (c) => c.toUpperCase()))}.**`] : []),
    ...triageLine(results),
    ...visualLines(results, maxChars),
    '',
    results.runs.map((run) => `[run ${run.runId.slice(0, 8)}](${run.url}) (${run.status})`).join(' · ') +
      (context.artifactUrl ? ` · [artifacts](${context.artifactUrl})` : ''),
  ];
  for (const run of results.runs)
    if (run.runnerError)
      head.push('', `> Runner error in run ${run.runId.slice(0, 8)}: ${cell(cut(run.runnerError, 2000))}`);
  const urls = new Map(results.runs.map((run) => [run.runId, run.url]));
  const failed = results.tests.filter(isFailedTest);
  const others = results.tests.filter((test) => !isFailedTest(test));

  // Room left once the head, the table's head and the omission lines are written.
  let room = maxChars - head.join('\n').length - tableHead.join('\n').length - 400;
  const take = (text: string) => {
    if (text.length + 1 > room) return false;
    room -= text.length + 1;
    return true;
  };
  const failedRows: string[] = [];
  for (const test of failed) {
    const line = row(test, urls.get(test.runId));
    if (!take(line)) break;
    failedRows.push(line);
  }
  const blocks: string[] = [];
  for (const test of failed.slice(0, failedRows.length)) {
    const block = details(test, context.maxDetailChars ?? 4000);
    if (!take(`\n${block}`)) break;
    blocks.push(block);
  }
  const otherRows: string[] = [];
  for (const test of others) {
    const line = row(test, undefined);
    if (!take(line)) break;
    otherRows.push(line);
  }

  const lines = [...head];
  if (results.tests.length > 0) lines.push('', ...tableHead, ...failedRows, ...otherRows);
  const leftOut = results.tests.length - failedRows.length - otherRows.length;
  if (leftOut > 0)
    lines.push(
      '',
      `…and ${leftOut} more tests (${failed.length - failedRows.length} of them failed), left out to stay within GitHub's size limit: see the run page.`,
    );
  for (const block of blocks) lines.push('', block);
  if (blocks.length < failedRows.length)
    lines.push(
      '',
      `…the full messages of ${failedRows.length - blocks.length} more failed tests are on the run page.`,
    );
  return `${lines.join('\n')}\n`;
}

/** "2 new failures · 1 known · 1 quarantined", when the service classed the failures. */
function triageLine(results: Results): string[] {
  const counts = new Map<string, number>();
  for (const test of results.tests)
    if (isFailedTest(test) && test.triage) counts.set(test.triage, (counts.get(test.triage) ?? 0) + 1);
  if (counts.size === 0) return [];
  const parts = (['new', 'known', 'flaky', 'quarantined'] as const)
    .filter((triage) => counts.has(triage))
    .map((triage) => {
      const n = counts.get(triage) ?? 0;
      return triage === 'new' ? `**${n}** new ${n === 1 ? 'failure' : 'failures'}` : `**${n}** ${triage}`;
    });
  return ['', `Failures against history: ${parts.join(' · ')}`];
}

/** Visual changes listed in the summary at most; the review page has them all. */
const visualListMax = 10;
/** Share of the size budget the thumbnails may take (presigned URLs run to ~1500 characters). */
const thumbnailShare = 0.25;

/** Text in a double-quoted HTML attribute: one line, markup characters as entities. */
const attribute = (value: string) =>
  value
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

/**
 * The change's picture (its diff, or the new screenshot) as a thumbnail linking to its run's
 * review page. The service presigns the picture's URL, since GitHub's image proxy sends no
 * API key.
 */
function thumbnail(change: VisualChange, reviewUrl: string): string {
  const alt = `${cut(change.testName, 200)}: ${change.status === 'new' ? 'new screenshot' : 'diff'}`;
  return `<a href="${attribute(reviewUrl)}"><img src="${attribute(change.imageUrl ?? '')}" width="320" alt="${attribute(alt)}"></a>`;
}

/**
 * When the run found any: "🖼️ 2 visual changes await review (1 changed, 1 new) · review run
 * 1a2b3c4d", then one line per change (test, changed or new, the differing share), with its
 * thumbnail under it when the service gave the picture's URL.
 */
function visualLines(results: Results, maxChars: number): string[] {
  const changes = visualChangesOf(results);
  if (changes.length === 0) return [];
  const changed = changes.filter((change) => change.status === 'changed').length;
  const reviewUrls = new Map(results.runs.map((run) => [run.runId, visualReviewUrl(run.url)]));
  const links = results.runs
    .filter((run) => changes.some((change) => change.runId === run.runId))
    .map((run) => `[review run ${run.runId.slice(0, 8)}](${visualReviewUrl(run.url)})`);
  let room = Math.floor(maxChars * thumbnailShare);
  let thumbnailsLeftOut = 0;
  const list = changes.slice(0, visualListMax).map((change) => {
    const what =
      change.status === 'new'
        ? 'new screenshot, no baseline yet'
        : `changed: ${(change.ratio * 100).toFixed(2)} % of pixels differ`;
    const line = `- ${cell(change.testName)}: ${what}`;
    const reviewUrl = reviewUrls.get(change.runId);
    if (!change.imageUrl || !reviewUrl) return line;
    // A continuation line of the item: the picture under its text.
    const picture = `  <br>${thumbnail(change, reviewUrl)}`;
    if (picture.length + 1 > room) {
      thumbnailsLeftOut += 1;
      return line;
    }
    room -= picture.length + 1;
    return `${line}\n${picture}`;
  });
  if (changes.length > visualListMax)
    list.push(`- …and ${changes.length - visualListMax} more on the review page`);
  if (thumbnailsLeftOut > 0)
    list.push(
      '',
      `…${thumbnailsLeftOut} more ${thumbnailsLeftOut === 1 ? 'thumbnail' : 'thumbnails'} left out to stay within GitHub's size limit: see the review page.`,
    );
  return [
    '',
    `🖼️ **${changes.length}** visual ${changes.length === 1 ? 'change awaits' : 'changes await'} review ` +
      `(${changed} changed, ${changes.length - changed} new) · ${links.join(' · ')}`,
    '',
    ...list,
  ];
}
