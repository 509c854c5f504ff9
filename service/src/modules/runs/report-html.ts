import type { RunStepResult, RunTestResult, TestRunDetail } from '@stepdeck/contract';
import escapeHtml from 'escape-html';

const esc = (value: unknown): string => escapeHtml(String(value ?? ''));

const colors: Record<string, string> = {
  passed: '#1a7f37',
  completed: '#1a7f37',
  failed: '#cf222e',
  timedOut: '#cf222e',
  flaky: '#9a6700',
  interrupted: '#9a6700',
  skipped: '#6e7781',
};

const seconds = (ms: number | null | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;

const mono = 'font-family:Menlo,Consolas,monospace;font-size:12px;';

const stepMarks: Record<RunStepResult['status'], { mark: string; color: string; label: string }> = {
  passed: { mark: '&#10003;', color: '#1a7f37', label: 'passed' },
  failed: { mark: '&#10007;', color: '#cf222e', label: 'failed' },
  skipped: { mark: '&#8631;', color: '#6e7781', label: 'skipped' },
  notRun: { mark: '&#8212;', color: '#6e7781', label: 'not run' },
};

/** The test's step tree with each step's outcome, indented by depth (tables only, for email). */
function stepTree(steps: RunStepResult[]): string {
  if (steps.length === 0) return '';
  const rows = steps
    .map((step) => {
      const { mark, color, label } = stepMarks[step.status];
      const action =
        step.action && step.action !== step.name
          ? ` <span style="color:#57606a;">${esc(step.action)}</span>`
          : '';
      const error = step.error
        ? `<div style="${mono}color:#cf222e;white-space:pre-wrap;margin-top:2px;">${esc(step.error)}</div>`
        : '';
      return `<tr><td style="padding:2px 6px 2px ${8 + step.depth * 18}px;font-size:13px;vertical-align:top;"><span style="color:${color};" title="${label}">${mark}</span> <span${step.status === 'failed' ? ' style="font-weight:bold;"' : ''}>${esc(step.name)}</span>${action}${error}</td><td style="padding:2px 6px;font-size:12px;color:${color};vertical-align:top;">${label}</td><td style="padding:2px 6px;font-size:12px;color:#57606a;text-align:right;vertical-align:top;">${step.status === 'passed' || step.status === 'failed' ? seconds(step.duration) : ''}</td></tr>`;
    })
    .join('');
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="margin-top:8px;border:1px solid #d0d7de;border-radius:6px;border-collapse:collapse;">${rows}</table>`;
}

/** The failure under a test's name: the message, the step path, and the step tree. */
function failureBlock(test: RunTestResult): string {
  if (!test.errorMessage) return '';
  const flaky = test.flaky
    ? `<div style="font-size:12px;color:#9a6700;margin-top:4px;">Flaky: failed, then passed on a retry. The failed attempt:</div>`
    : '';
  const location = test.errorLocation
    ? `<div style="${mono}color:#57606a;">at ${esc(test.errorLocation)}</div>`
    : '';
  // A passing retry's tree is all green; the tree is for the tests that failed.
  const tree = test.flaky ? '' : stepTree(test.steps ?? []);
  return `${flaky}<div style="margin-top:6px;${mono}color:#cf222e;white-space:pre-wrap;">${esc(test.errorMessage)}</div>${location}${tree}`;
}

/**
 * The run as one self-contained HTML document: inline styles only and table layout, so it
 * reads the same in a browser and in email clients that strip <style> blocks.
 */
export function renderReportHtml(run: TestRunDetail, publicUrl: string): string {
  const report = run.report;
  const stats = run.stats ?? report?.runTypeInfo.stats ?? { passed: 0, failed: 0, skipped: 0, total: 0 };
  const statusColor = colors[run.status] ?? '#24292f';
  const cell = 'padding:8px 10px;border-bottom:1px solid #d0d7de;vertical-align:top;font-size:14px;';
  const rows = (report?.runTypeInfo.testResults ?? [])
    .map((test) => {
      const color = colors[test.status] ?? '#24292f';
      const error = failureBlock(test);
      return `<tr><td style="${cell}"><strong>${esc(test.name)}</strong>${error}</td><td style="${cell}color:${color};font-weight:bold;">${esc(test.status)}</td><td style="${cell}text-align:right;">${seconds(test.duration)}</td></tr>`;
    })
    .join('\n');
  const runnerError = report?.runTypeInfo.runnerError
    ? `<p style="margin:12px 0;padding:10px;background:#ffebe9;color:#cf222e;font-size:14px;">${esc(report.runTypeInfo.runnerError)}</p>`
    : '';
  const stat = (label: string, value: number, color: string) =>
    `<td style="padding:10px 16px;text-align:center;"><div style="font-size:22px;font-weight:bold;color:${color};">${value}</div><div style="font-size:12px;color:#57606a;">${label}</div></td>`;
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Run ${esc(run.name)}: ${esc(run.status)}</title></head>
<body style="margin:0;padding:24px;background:#f6f8fa;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#24292f;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:760px;margin:0 auto;background:#ffffff;border:1px solid #d0d7de;border-radius:6px;">
<tr><td style="padding:20px 24px;">
<h1 style="margin:0 0 4px 0;font-size:20px;">${esc(run.name)}</h1>
<p style="margin:0;font-size:14px;color:#57606a;">Run ${esc(run.id)} on branch ${esc(run.branchName ?? '')}</p>
<p style="margin:12px 0 0 0;font-size:16px;">Status: <strong style="color:${statusColor};">${esc(run.status)}</strong> &middot; Duration ${seconds(run.duration)} &middot; Completed ${esc(run.completedAt ?? '')}</p>
${runnerError}
<table role="presentation" cellpadding="0" cellspacing="0" style="margin:16px 0;border:1px solid #d0d7de;border-radius:6px;">
<tr>${stat('passed', stats.passed, '#1a7f37')}${stat('failed', stats.failed, '#cf222e')}${stat('skipped', stats.skipped, '#6e7781')}${stat('total', stats.total, '#24292f')}</tr>
</table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;">
<tr><th align="left" style="${cell}font-size:12px;color:#57606a;">Test</th><th align="left" style="${cell}font-size:12px;color:#57606a;">Status</th><th align="right" style="${cell}font-size:12px;color:#57606a;">Duration</th></tr>
${rows}
</table>
<p style="margin:16px 0 0 0;font-size:12px;color:#57606a;">Generated by Stepdeck &middot; ${esc(publicUrl)}</p>
</td></tr>
</table>
</body>
</html>
`;
}
