import path from 'node:path';
import { collectArtifacts } from './artifacts.ts';
import type { CliArgs } from './cli-args.ts';
import { progressReporter } from './cli-progress.ts';
import { cancelOnInterrupt } from './cli-signals.ts';
import { StepdeckClient } from './client.ts';
import type { Inputs } from './inputs.ts';
import { outputsFor } from './outputs.ts';
import { cut, failingStepText, healedText, reason } from './report/failure.ts';
import { writeJunit } from './report/index.ts';
import { formatDuration } from './report/markdown.ts';
import { failsStep, isFailedTest, isFlakyTest, mergeRuns, type Results, runUrl } from './results.ts';
import { gatingStatus, quarantineLine, withTriage } from './triage.ts';
import { trigger } from './trigger.ts';
import { failsOnVisualChanges, visualChangesLine } from './visual.ts';
import { waitForRuns } from './wait.ts';

/** Outputs that are counts: numbers in the CLI's JSON (the action's outputs are strings by nature). */
const numericOutputs = [
  'passed',
  'failed',
  'skipped',
  'flaky',
  'total',
  'carried-over',
  'duration-ms',
  'new-failures',
  'visual-changes',
];

/** The CLI's JSON document: the action's outputs with counts as numbers and `results` as an object. */
export function jsonDocument(outputs: Record<string, string>): Record<string, unknown> {
  const document: Record<string, unknown> = { ...outputs };
  for (const name of numericOutputs) if (name in outputs) document[name] = Number(outputs[name]);
  if (outputs.results !== undefined) document.results = JSON.parse(outputs.results);
  return document;
}

/** `stepdeck run` with valid inputs: trigger → wait → collect → print. */
export async function runCommand(inputs: Inputs, args: CliArgs, err: (line: string) => void) {
  const print = (text: string) => process.stdout.write(`${text}\n`);
  const client = new StepdeckClient({ ...inputs, log: err });
  let runIds: string[] = [];
  const stopCancelling = cancelOnInterrupt(client, {
    runIds: () => runIds,
    log: (line) => {
      err(line);
      if (args.json) print(JSON.stringify({ status: 'error', error: line.replace(/^stepdeck: /, '') }));
    },
    exit: (code) => process.exit(code),
  });
  try {
    const triggered = await trigger(client, inputs, err);
    runIds = triggered.runs.map((run) => run.runId);
    const runUrls = runIds.map((id) => runUrl(inputs.baseUrl, inputs.projectId, id));
    err(`Started ${runUrls.join(', ')}`);
    if (!inputs.wait) {
      // `read -r RUN_ID RUN_URL < <(stepdeck run --no-wait …)`: one "<id> <url>" line per run.
      if (args.json) print(JSON.stringify(jsonDocument(outputsFor({ runIds, runUrls }))));
      else print(runIds.map((id, index) => `${id} ${runUrls[index]}`).join('\n'));
      return 0;
    }
    const waited = await waitForRuns(client, runIds, {
      timeoutMs: inputs.timeoutMs,
      pollIntervalMs: inputs.pollIntervalMs,
      log: err,
      onPoll: progressReporter(err),
    });
    // The runs have ended: nothing left to cancel on a signal.
    stopCancelling();
    const results = await withTriage(
      client,
      mergeRuns(waited.runs, {
        ...inputs,
        timedOut: waited.timedOut,
        unfinished: waited.unfinished,
      }),
      err,
    );
    if (results.note) err(`stepdeck: ${results.status}: ${results.note}`);
    const dir = path.resolve(args.artifactsDir);
    const collected = await collectArtifacts(client, waited.runs, results, {
      dir,
      mode: inputs.artifacts,
      log: err,
    });
    const junitPath = writeJunit(results, dir);
    const outputs = outputsFor({
      runIds,
      runUrls,
      results,
      reportPath: collected.reportPath,
      junitPath,
      artifactsPath: dir,
    });
    if (args.json) print(JSON.stringify(jsonDocument(outputs)));
    else print(summaryText(results, { runUrls, dir, junitPath }));
    const quarantined = quarantineLine(results);
    if (quarantined) err(quarantined);
    const visual = visualChangesLine(results);
    if (visual && inputs.visualChanges !== 'ignore') err(`stepdeck: ${visual}`);
    const failed =
      failsStep(gatingStatus(results), inputs.failOn) || failsOnVisualChanges(results, inputs.visualChanges);
    return failed ? 1 : 0;
  } finally {
    stopCancelling();
  }
}

/** The readable result on stdout (without --json). */
export function summaryText(results: Results, where: { runUrls: string[]; dir: string; junitPath: string }) {
  const { stats } = results;
  return [
    `Status: ${results.status}  (${stats.passed} passed, ${stats.failed} failed, ${stats.skipped} skipped, ` +
      (stats.flaky > 0 ? `${stats.flaky} flaky, ` : '') +
      `${stats.total} total, ${formatDuration(results.durationMs)})` +
      (results.note ? `: ${results.note}` : ''),
    ...results.tests.map((test) => {
      if (isFlakyTest(test)) return `  ~ ${test.name} (flaky: passed on a retry)`;
      const healed = healedText(test);
      if (healed) return `  ✓ ${test.name}: ${healed}`;
      if (!isFailedTest(test)) return `  ${test.status === 'skipped' ? '-' : '✓'} ${test.name}`;
      const step = failingStepText(test);
      const triage = test.triage ? ` [${test.triage}]` : '';
      const indent = (text: string) => text.replace(/\n/g, '\n        ');
      const why = reason(test, 300);
      return [
        `  ✗ ${test.name}${triage}`,
        step && `      step: ${step}`,
        `      ${why}`,
        // A one-line message is already the reason: said once.
        test.errorMessage?.trim() !== why &&
          test.errorMessage &&
          `      ${indent(cut(test.errorMessage, 2000))}`,
      ]
        .filter(Boolean)
        .join('\n');
    }),
    ...[visualChangesLine(results)].filter((line) => line !== undefined).map((line) => `Visual: ${line}`),
    `Run: ${where.runUrls.join(', ')}`,
    `Artifacts: ${where.dir}`,
    `JUnit: ${where.junitPath}`,
  ].join('\n');
}
