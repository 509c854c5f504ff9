import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type MappedRecording, mapRecording, parseRecording } from '@stepdeck/contract';
import { ApiError, StepdeckClient, type UploadFile } from '../client.ts';
import { type RecordOptions, recordSession } from './session.ts';

export const recordUsage = `Usage: stepdeck record <url> [options]

Opens <url> in Chromium with Playwright's codegen recorder. Act in the browser, then close it:
what was recorded is saved as a new draft test, or appended to --test-id.
Needs Playwright where you run it (npm install --save-dev playwright).

  --name NAME            name of the new test (max 64 characters)
  --parent UUID          directory to create it in
  --test-id UUID         append to this test instead (its steps are kept)
  --strict               save nothing when an action has no step (default: save the
                         mapped steps and list the others)
  --files-dir DIR        where files chosen for uploads are read from (default: .)
  --browser-path PATH    a Chromium to use instead of Playwright's own
  --json                 print { testId, steps, unmapped } as JSON on stdout
  --api-key KEY  --base-url URL  --project-id UUID  --branch-id UUID
                         as for stepdeck run (or STEPDECK_API_KEY, ...)
`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class RecordInputError extends Error {
  override name = 'RecordInputError';
}

export interface RecordSettings {
  url: string;
  name: string | undefined;
  parent: string | undefined;
  testId: string | undefined;
  strict: boolean;
  filesDir: string;
  browserPath: string | undefined;
  json: boolean;
  apiKey: string;
  baseUrl: string;
  projectId: string;
  branchId: string | undefined;
}

/** Flags and STEPDECK_<NAME> variables; every problem listed at once. */
export function parseRecordArgs(argv: string[], env: NodeJS.ProcessEnv): RecordSettings {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      parent: { type: 'string' },
      'test-id': { type: 'string' },
      strict: { type: 'boolean' },
      'files-dir': { type: 'string' },
      'browser-path': { type: 'string' },
      json: { type: 'boolean' },
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      'project-id': { type: 'string' },
      'branch-id': { type: 'string' },
    },
  });
  const problems: string[] = [];
  const setting = (name: string) => {
    const flag = values[name as keyof typeof values];
    const value = typeof flag === 'string' ? flag : env[`STEPDECK_${name.toUpperCase().replace(/-/g, '_')}`];
    return value?.trim() || undefined;
  };
  const uuid = (name: string) => {
    const value = setting(name);
    if (value !== undefined && !uuidPattern.test(value))
      problems.push(`--${name} must be a UUID, got "${value}"`);
    return value;
  };
  const required = (name: string) => {
    const value = setting(name);
    if (value === undefined) problems.push(`--${name} is required`);
    return value ?? '';
  };
  const [url = '', ...extra] = positionals;
  if (!url) problems.push('the URL to record is required: stepdeck record <url>');
  else if (!/^https?:\/\//i.test(url))
    problems.push(`the URL must start with http:// or https://, got "${url}"`);
  if (extra.length > 0) problems.push(`unexpected arguments: ${extra.join(' ')}`);
  const apiKey = required('api-key');
  const baseUrl = required('base-url').replace(/\/+$/, '');
  if (baseUrl && !/^https?:\/\//i.test(baseUrl))
    problems.push(`--base-url must be an http(s) URL, got "${baseUrl}"`);
  const projectId = required('project-id');
  if (projectId && !uuidPattern.test(projectId))
    problems.push(`--project-id must be a UUID, got "${projectId}"`);
  const testId = uuid('test-id');
  const parent = uuid('parent');
  const name = typeof values.name === 'string' ? values.name.trim() : undefined;
  if (testId && (name || parent)) problems.push('--test-id appends to a test: leave out --name and --parent');
  if (!testId && !name) problems.push('--name is required for a new test (or --test-id to append)');
  if (name && name.length > 64) problems.push(`--name must be at most 64 characters, got ${name.length}`);
  if (problems.length > 0) throw new RecordInputError(problems.join('; '));
  return {
    url,
    name,
    parent,
    testId,
    strict: values.strict === true,
    filesDir: path.resolve(typeof values['files-dir'] === 'string' ? values['files-dir'] : '.'),
    browserPath: setting('browser-path'),
    json: values.json === true,
    apiKey,
    baseUrl,
    projectId,
    branchId: uuid('branch-id'),
  };
}

export interface RecordResult {
  testId: string | null;
  mapped: MappedRecording;
}

/**
 * Records, maps and saves. A new test is a draft (`--name`, `--parent`); `--test-id` appends
 * after its steps, sending the `editVersion` read with them, so a test changed meanwhile
 * answers 409 instead of losing either side. Nothing is saved with `--strict` and an unmapped
 * action, or when nothing became a step.
 */
export async function record(
  settings: RecordSettings,
  log: (line: string) => void,
  session: Partial<RecordOptions> = {},
): Promise<RecordResult> {
  const client = new StepdeckClient({ ...settings, log });
  // Read before recording: a wrong id, key or service fails now, not after the user's session.
  const existing = settings.testId ? await client.getTest(settings.testId) : undefined;
  if (existing?.test.directory) throw new RecordInputError(`--test-id ${settings.testId} is a directory`);
  if (settings.parent && !(await client.getTest(settings.parent)).test.directory)
    throw new RecordInputError(`--parent ${settings.parent} is a test, not a directory`);
  if (!settings.testId && !settings.parent) await client.checkAccess();
  const jsonl = await recordSession({
    url: settings.url,
    executablePath: settings.browserPath,
    log,
    ...session,
  });
  const mapped = mapRecording(parseRecording(jsonl));
  for (const { action, reason } of mapped.unmapped) log(`Not mapped: ${action} (${reason})`);
  if (mapped.steps.length === 0) {
    log('Nothing was recorded: no test saved.');
    return { testId: null, mapped };
  }
  if (settings.strict && mapped.unmapped.length > 0) {
    log(`--strict: ${mapped.unmapped.length} recorded action(s) have no step; no test saved.`);
    return { testId: null, mapped };
  }
  const files: UploadFile[] = [];
  for (const filename of mapped.files) {
    const file = path.join(settings.filesDir, path.basename(filename));
    if (fs.existsSync(file))
      files.push({ filename: path.basename(filename), content: fs.readFileSync(file) });
    else log(`Upload "${filename}" to the test in the console: it is not in ${settings.filesDir}`);
  }
  if (existing && settings.testId) {
    await client.updateTest(
      settings.testId,
      { steps: [...existing.steps, ...mapped.steps], editVersion: existing.test.editVersion },
      files,
    );
    log(`Appended ${mapped.steps.length} step(s) to "${existing.test.name}" (${settings.testId}).`);
    return { testId: settings.testId, mapped };
  }
  const testId = await client.createTest(
    {
      name: settings.name,
      status: 'draft',
      ...(settings.parent ? { parentTestId: settings.parent } : {}),
      steps: mapped.steps,
    },
    files,
  );
  log(`Saved "${settings.name}" (${testId}) with ${mapped.steps.length} step(s), as a draft.`);
  return { testId, mapped };
}

/** `stepdeck record`. Exit codes: 0 saved, 1 nothing saved (strict, empty), 2 usage or API error. */
export async function recordMain(
  argv: string[],
  env: NodeJS.ProcessEnv,
  session: Partial<RecordOptions> = {},
): Promise<number> {
  const err = (line: string) => process.stderr.write(`${line}\n`);
  let settings: RecordSettings;
  try {
    settings = parseRecordArgs(argv, env);
  } catch (error) {
    err(`stepdeck record: ${(error as Error).message}\n\n${recordUsage}`);
    return 2;
  }
  try {
    const result = await record(settings, err, session);
    if (settings.json)
      process.stdout.write(
        `${JSON.stringify({ testId: result.testId, steps: result.mapped.steps, unmapped: result.mapped.unmapped })}\n`,
      );
    return result.testId ? 0 : 1;
  } catch (error) {
    let message = error instanceof Error ? error.message : String(error);
    if (error instanceof ApiError && error.status === 409)
      message = `the test changed while you recorded (409); nothing was saved, record again: ${message}`;
    // Playwright's launch errors run to many lines (a log box): the first says what failed.
    let line = message.split('\n')[0] ?? '';
    if (line.includes("Executable doesn't exist"))
      line += '; run `npx playwright install chromium`, or pass --browser-path';
    err(`stepdeck record: ${line.replaceAll(settings.apiKey, '***')}`);
    return 2;
  }
}
