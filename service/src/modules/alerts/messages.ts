import escapeHtml from 'escape-html';

/** One failing test as an alert names it, with its triage class when history knows it. */
export interface AlertFailure {
  name: string;
  status: string;
  triage: 'new' | 'known' | 'flaky' | 'quarantined' | null;
  errorMessage: string | null;
}

/** What every channel says about a run, whatever its format. */
export interface AlertContent {
  event: 'failed' | 'recovered' | 'test';
  runName: string;
  runUrl: string;
  project: string;
  branch: string;
  target: string;
  trigger: string;
  stats: { passed: number; failed: number; skipped: number; total: number };
  failures: AlertFailure[];
  /** Draft or archived tests of the target the run did not include. */
  leftOut: number;
}

/** Failures named in a message; the rest are counted ("and 3 more"). */
const shownFailures = 10;
/** The first lines of an error: enough to recognise it, short enough for a chat message. */
const errorPreview = (message: string | null) =>
  message === null ? null : message.split('\n').slice(0, 3).join('\n').slice(0, 400);

export function headline(content: AlertContent): string {
  if (content.event === 'recovered') return `Recovered: ${content.runName} passed again`;
  if (content.event === 'test') return `Test alert from Stepdeck: ${content.runName}`;
  return `Run failed: ${content.runName} (${content.stats.failed} of ${content.stats.total} failed)`;
}

const summaryLine = (content: AlertContent) =>
  `${content.project} · ${content.branch} · ${content.target} · ${content.trigger} — ` +
  `${content.stats.passed} passed, ${content.stats.failed} failed, ${content.stats.skipped} skipped` +
  (content.leftOut > 0 ? `, ${content.leftOut} left out (not active)` : '');

const triageLabel = (failure: AlertFailure) => (failure.triage ? ` [${failure.triage}]` : '');

/** Slack's mrkdwn treats &, < and > as markup. */
const slackText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A Slack incoming-webhook message: `text` for notifications, blocks for the channel. */
export function slackBody(content: AlertContent): Record<string, unknown> {
  const failures = content.failures.slice(0, shownFailures).map((failure) => {
    const preview = errorPreview(failure.errorMessage);
    return `• *${slackText(failure.name)}*${triageLabel(failure)}${preview ? `\n\`\`\`${slackText(preview)}\`\`\`` : ''}`;
  });
  const more = content.failures.length - shownFailures;
  if (more > 0) failures.push(`…and ${more} more`);
  const blocks: unknown[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*${slackText(headline(content))}*\n${slackText(summaryLine(content))}` },
    },
  ];
  if (failures.length > 0)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: failures.join('\n') } });
  blocks.push({
    type: 'actions',
    elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open run' }, url: content.runUrl }],
  });
  return { text: `${headline(content)} — ${content.runUrl}`, blocks };
}

/** A Microsoft Teams incoming-webhook message: one Adaptive Card. */
export function teamsBody(content: AlertContent): Record<string, unknown> {
  const body: unknown[] = [
    {
      type: 'TextBlock',
      size: 'Medium',
      weight: 'Bolder',
      wrap: true,
      text: headline(content),
      color: content.event === 'failed' ? 'Attention' : content.event === 'recovered' ? 'Good' : 'Default',
    },
    { type: 'TextBlock', wrap: true, isSubtle: true, text: summaryLine(content) },
  ];
  if (content.failures.length > 0)
    body.push({
      type: 'FactSet',
      facts: content.failures.slice(0, shownFailures).map((failure) => ({
        title: `${failure.name}${triageLabel(failure)}`,
        value: errorPreview(failure.errorMessage) ?? failure.status,
      })),
    });
  const more = content.failures.length - shownFailures;
  if (more > 0) body.push({ type: 'TextBlock', text: `…and ${more} more`, wrap: true });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: 'Open run', url: content.runUrl }],
        },
      },
    ],
  };
}

/** An email: the subject, a plain-text part and an HTML part saying the same. */
export function emailMessage(content: AlertContent): { subject: string; text: string; html: string } {
  const shown = content.failures.slice(0, shownFailures);
  const more = content.failures.length - shownFailures;
  const text = [
    headline(content),
    summaryLine(content),
    '',
    ...shown.flatMap((failure) => {
      const preview = errorPreview(failure.errorMessage);
      return [
        `- ${failure.name}${triageLabel(failure)}`,
        ...(preview ? [`    ${preview.replaceAll('\n', '\n    ')}`] : []),
      ];
    }),
    ...(more > 0 ? [`…and ${more} more`] : []),
    '',
    `Open the run: ${content.runUrl}`,
  ].join('\n');
  const items = shown
    .map((failure) => {
      const preview = errorPreview(failure.errorMessage);
      return `<li><strong>${escapeHtml(failure.name)}</strong>${escapeHtml(triageLabel(failure))}${
        preview ? `<pre>${escapeHtml(preview)}</pre>` : ''
      }</li>`;
    })
    .join('');
  const html = [
    `<p><strong>${escapeHtml(headline(content))}</strong></p>`,
    `<p>${escapeHtml(summaryLine(content))}</p>`,
    items ? `<ul>${items}</ul>` : '',
    more > 0 ? `<p>…and ${more} more</p>` : '',
    `<p><a href="${escapeHtml(content.runUrl)}">Open the run</a></p>`,
  ].join('\n');
  return { subject: `[Stepdeck] ${headline(content)}`, text, html };
}
