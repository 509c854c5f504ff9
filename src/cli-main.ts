import path from 'node:path';
import { parseArgs } from 'node:util';
import { collectArtifacts } from './artifacts.ts';
import { cancelOnInterrupt } from './cli-signals.ts';
import { StepdeckClient } from './client.ts';
import { InputError, inputNames, parseInputs } from './inputs.ts';
import { outputsFor } from './outputs.ts';
import { recordMain, recordUsage } from './record/command.ts';
import { cut, failingStepText, reason } from './report/failure.ts';
import { writeJunit } from './report/index.ts';
import { formatDuration } from './report/markdown.ts';
import { failsStep, isFailedTest, isFlakyTest, mergeRuns, runUrl } from './results.ts';
import { trigger } from './trigger.ts';
import { waitForRuns } from './wait.ts';

const usage = `Usage: stepdeck run [options]

Triggers a Stepdeck run, waits for it and exits non-zero per --fail-on.
Every option also reads STEPDECK_<NAME> (e.g. STEPDECK_API_KEY, STEPDECK_TAG_ID).

  --api-key KEY               API key (prefer STEPDECK_API_KEY)
  --base-url URL              the Stepdeck service
  --project-id UUID           --branch-id UUID
  --test-ids ID,ID            or --tag-id UUID (exactly one)
  --config JSON               --target-url URL   --browser chromium|firefox|webkit
  --wait / --no-wait          (default: wait)
  --timeout-minutes N         (30)     --poll-interval-seconds N (5)
  --fail-on LIST              (failed,cancelled,timeout,error; or none)
  --artifacts all|failed|none (all)    --artifacts-dir DIR (./stepdeck-artifacts)
  --json                      print the outputs as JSON on stdout

Also: stepdeck record <url>   records a test in a browser (stepdeck record --help)
`;

/** Exit codes: 0 ok, 1 an outcome listed in fail-on, 2 usage or API error. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const err = (line: string) => process.stderr.write(`${line}\n`);
  if (argv[0] === 'record') {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(recordUsage);
      return 0;
    }
    return recordMain(argv.slice(1), env);
  }
  const options = Object.fromEntries(inputNames.map((name) => [name, { type: 'string' as const }]));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...options,
        wait: { type: 'boolean' },
        'no-wait': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        'artifacts-dir': { type: 'string' },
      },
    });
  } catch (error) {
    err(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] !== 'run') {
    (values.help ? process.stdout : process.stderr).write(usage);
    return values.help ? 0 : 2;
  }
  const raw: Record<string, string | undefined> = {};
  for (const name of inputNames) {
    const flag = values[name];
    raw[name] = typeof flag === 'string' ? flag : env[`STEPDECK_${name.toUpperCase().replace(/-/g, '_')}`];
  }
  if (values.wait) raw.wait = 'true';
  if (values['no-wait']) raw.wait = 'false';
  let apiKey: string | undefined;
  let stopCancelling = () => {};
  try {
    const inputs = await parseInputs(raw, { workflow: 'cli', job: 'run' });
    apiKey = inputs.apiKey;
    const client = new StepdeckClient({ ...inputs, log: err });
    let runIds: string[] = [];
    stopCancelling = cancelOnInterrupt(client, {
      runIds: () => runIds,
      log: err,
      exit: (code) => process.exit(code),
    });
    const triggered = await trigger(client, inputs, err);
    runIds = triggered.runs.map((run) => run.runId);
    const runUrls = runIds.map((id) => runUrl(inputs.baseUrl, inputs.projectId, id));
    err(`Started ${runUrls.join(', ')}`);
    if (!inputs.wait) {
      if (values.json) process.stdout.write(`${JSON.stringify(outputsFor({ runIds, runUrls }))}\n`);
      return 0;
    }
    let last = '';
    const waited = await waitForRuns(client, runIds, {
      timeoutMs: inputs.timeoutMs,
      pollIntervalMs: inputs.pollIntervalMs,
      log: err,
      onPoll: (runs) => {
        const line = runs.map((run) => `${run.id.slice(0, 8)} ${run.status}`).join(', ');
        if (line !== last) err(`[${new Date().toISOString()}] ${line}`);
        last = line;
      },
    });
    // The runs have ended: nothing left to cancel on a signal.
    stopCancelling();
    const results = mergeRuns(waited.runs, { ...inputs, timedOut: waited.timedOut });
    const dir = path.resolve(
      typeof values['artifacts-dir'] === 'string' ? values['artifacts-dir'] : 'stepdeck-artifacts',
    );
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
    if (values.json)
      process.stdout.write(
        `${JSON.stringify({ ...outputs, results: JSON.parse(outputs.results ?? '{}') })}\n`,
      );
    else {
      const { stats } = results;
      const lines = [
        `Status: ${results.status}  (${stats.passed} passed, ${stats.failed} failed, ${stats.skipped} skipped, ` +
          (stats.flaky > 0 ? `${stats.flaky} flaky, ` : '') +
          `${stats.total} total, ${formatDuration(results.durationMs)})`,
        ...results.tests.map((test) => {
          if (isFlakyTest(test)) return `  ~ ${test.name} (flaky: passed on a retry)`;
          if (!isFailedTest(test)) return `  ${test.status === 'skipped' ? '-' : '✓'} ${test.name}`;
          const step = failingStepText(test);
          const indent = (text: string) => text.replace(/\n/g, '\n        ');
          return [
            `  ✗ ${test.name}`,
            step && `      step: ${step}`,
            `      ${reason(test, 300)}`,
            test.errorMessage && `      ${indent(cut(test.errorMessage, 2000))}`,
          ]
            .filter(Boolean)
            .join('\n');
        }),
        `Run: ${runUrls.join(', ')}`,
        `Artifacts: ${dir}`,
        `JUnit: ${junitPath}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return failsStep(results.status, inputs.failOn) ? 1 : 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    err(`stepdeck: ${apiKey ? message.replaceAll(apiKey, '***') : message}`);
    if (error instanceof InputError) err(`\n${usage}`);
    return 2;
  } finally {
    stopCancelling();
  }
}
