import { parseArgs } from 'node:util';
import { type InputProblem, inputNames } from './inputs.ts';

/** The variable an option reads: `--artifacts-dir` → `STEPDECK_ARTIFACTS_DIR`. */
export const variableOf = (name: string) => `STEPDECK_${name.toUpperCase().replace(/-/g, '_')}`;

/** `--api-key / STEPDECK_API_KEY`: how a CLI user sets an input (the action says `Input "api-key"`). */
const flagAndVariable = (name: string) => `--${name} / ${variableOf(name)}`;

/** An input problem in CLI words: `--api-key / STEPDECK_API_KEY is required`. */
export function cliWording({ input, problem, mentions = [] }: InputProblem): string {
  let text = problem;
  for (const other of mentions) text = text.replaceAll(`"${other}"`, flagAndVariable(other));
  return `${flagAndVariable(input)} ${text}`;
}

/** Options of the CLI only (not action inputs); each reads its variable too. */
const cliOptions = {
  json: { type: 'boolean' },
  'artifacts-dir': { type: 'string' },
} as const;

export interface CliArgs {
  command: string | undefined;
  help: boolean;
  /** Action inputs by name, flag over variable; `wait` also from --wait/--no-wait. */
  raw: Record<string, string | undefined>;
  json: boolean;
  artifactsDir: string;
  /** Problems with the CLI's own options, in CLI words. */
  problems: string[];
}

/** Flags, then `STEPDECK_<NAME>` for every option without its flag: the flag wins. */
export function readArgs(argv: string[], env: NodeJS.ProcessEnv): CliArgs {
  const inputs = Object.fromEntries(inputNames.map((name) => [name, { type: 'string' as const }]));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...inputs,
      ...cliOptions,
      wait: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const raw: Record<string, string | undefined> = {};
  for (const name of inputNames) {
    const flag = (values as Record<string, string | boolean | undefined>)[name];
    raw[name] = typeof flag === 'string' ? flag : env[variableOf(name)];
  }
  if (values.wait) raw.wait = 'true';
  if (values['no-wait']) raw.wait = 'false';
  const problems: string[] = [];
  let json = values.json === true;
  if (values.json === undefined) {
    const text = env[variableOf('json')]?.trim().toLowerCase();
    if (text === 'true') json = true;
    else if (text && text !== 'false')
      problems.push(`${flagAndVariable('json')} must be true or false, got "${text}"`);
  }
  const dir = values['artifacts-dir'];
  return {
    command: positionals[0],
    help: values.help === true,
    raw,
    json,
    artifactsDir:
      (typeof dir === 'string' ? dir : env[variableOf('artifacts-dir')]?.trim()) || 'stepdeck-artifacts',
    problems,
  };
}

/** Whether errors should be a JSON document, before (or without) a successful parse. */
export const wantsJson = (argv: readonly string[], env: NodeJS.ProcessEnv) =>
  argv.includes('--json') || env[variableOf('json')]?.trim().toLowerCase() === 'true';
