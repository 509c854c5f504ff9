import { type CliArgs, cliWording, readArgs, wantsJson } from './cli-args.ts';
import { InputError, type Inputs, parseInputs } from './inputs.ts';
import { recordMain, recordUsage } from './record/command.ts';
import { runSourceOf } from './run-source.ts';

const usage = `Usage: stepdeck run [options]

Triggers a Stepdeck run, waits for it and exits non-zero per --fail-on.
Every option also reads STEPDECK_<NAME> (e.g. STEPDECK_API_KEY, STEPDECK_TAG_ID,
STEPDECK_ARTIFACTS_DIR, STEPDECK_JSON=true, STEPDECK_WAIT=false); a flag wins over its variable.

  --api-key KEY               API key (prefer STEPDECK_API_KEY)
  --base-url URL              the Stepdeck service
  --project-id UUID           --branch-id UUID
  --test-ids ID,ID            or --tag-id UUID (exactly one)
  --config JSON               --target-url URL   --browser chromium|firefox|webkit
  --environment NAME          an environment of the project (staging, production): its base
                              URL, variables and secrets; --config/--target-url still win
  --wait / --no-wait          (default: wait; --no-wait prints "<run-id> <run-url>" per run)
  --timeout-minutes N         (30)     --poll-interval-seconds N (5)
  --fail-on LIST              (failed,cancelled,timeout,error; or none)
  --artifacts all|failed|none (all)    --artifacts-dir DIR (./stepdeck-artifacts)
  --label TEXT                a label stored with the run (a deploy, an environment)
  --visual-changes warn|fail|ignore  (warn) screenshots awaiting review: warn, exit 1, or
                              only count them
  --json                      print the outputs as JSON on stdout (errors too)

Also: stepdeck record <url>   records a test in a browser (stepdeck record --help)
`;

/** Exit codes: 0 ok, 1 an outcome listed in fail-on (or visual changes with --visual-changes fail), 2 usage or API error. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const err = (line: string) => process.stderr.write(`${line}\n`);
  if (argv[0] === 'record') {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write(recordUsage);
      return 0;
    }
    return recordMain(argv.slice(1), env);
  }
  // With --json, stdout holds exactly one JSON document, errors included.
  const json = wantsJson(argv, env);
  const fail = (message: string, withUsage = false) => {
    err(message.replace(/^/gm, 'stepdeck: '));
    if (withUsage) err(`\n${usage}`);
    if (json) process.stdout.write(`${JSON.stringify({ status: 'error', error: message })}\n`);
    return 2;
  };
  let args: CliArgs;
  try {
    args = readArgs(argv, env);
  } catch (error) {
    return fail((error as Error).message, true);
  }
  if (args.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (args.command !== 'run')
    return fail(args.command ? `unknown command "${args.command}"` : 'no command given', true);
  let inputs: Inputs | undefined;
  const problems = [...args.problems];
  try {
    inputs = await parseInputs(args.raw, { workflow: 'cli', job: 'run', source: runSourceOf(env) });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(...error.problems.map(cliWording));
  }
  if (problems.length > 0 || !inputs) {
    // One problem per line, named by flag and variable: the CLI has no "inputs".
    const apiKey = args.raw['api-key'];
    const message = problems.join('\n');
    return fail(apiKey ? message.replaceAll(apiKey, '***') : message, true);
  }
  const { runCommand } = await import('./cli-run.ts');
  try {
    return await runCommand(inputs, args, err);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return fail(message.replaceAll(inputs.apiKey, '***'));
  }
}
