// Light on purpose (no zod at load time): the action checks its inputs before loading the rest.
import type { RunConfig, RunSource } from '@stepdeck/contract';

/** Outcomes of a whole action run; `fail-on` picks which of them fail the step. */
export const outcomes = ['passed', 'failed', 'cancelled', 'timeout', 'error'] as const;
export type Outcome = (typeof outcomes)[number];
const failableOutcomes = ['failed', 'cancelled', 'timeout', 'error'] as const;

export interface Inputs {
  apiKey: string;
  baseUrl: string;
  projectId: string;
  branchId: string | undefined;
  testIds: string[];
  tagId: string | undefined;
  config: RunConfig | undefined;
  /** An environment of the project by name: its base URL, variables and secrets. */
  environment: string | undefined;
  wait: boolean;
  timeoutMs: number;
  pollIntervalMs: number;
  failOn: Outcome[];
  artifacts: 'all' | 'failed' | 'none';
  artifactName: string | undefined;
  artifactRetentionDays: number | undefined;
  summary: boolean;
  prComment: 'update' | 'new' | 'off';
  /** `per-job`: one comment per comment key; `aggregate`: one per key prefix, a row per job. */
  commentMode: 'per-job' | 'aggregate';
  commentKey: string;
  githubToken: string | undefined;
  annotations: boolean;
  commitStatus: boolean;
  /** On a re-run attempt: only what failed (`failed`) or everything (`all`). */
  rerun: 'failed' | 'all';
  /** Sent with the trigger: the commit, ref and pull request (from the environment) and `label`. */
  metadata: RunSource | undefined;
  /**
   * Screenshots awaiting review in the console: a warning (`warn`), a failed step (`fail`), or
   * nothing beyond the output and the summary (`ignore`).
   */
  visualChanges: 'warn' | 'fail' | 'ignore';
}

/** Raw values by input name (kebab-case); empty or absent means unset. */
export type RawInputs = Readonly<Record<string, string | undefined>>;

/** One problem with one input; `mentions` are the other inputs its text names ("tag-id"). */
export interface InputProblem {
  input: string;
  problem: string;
  mentions?: readonly string[];
}

/** `Input "name" problem`: the action's wording (the CLI words it with flags: src/cli-args.ts). */
export const actionWording = ({ input, problem }: InputProblem) => `Input "${input}" ${problem}`;

export class InputError extends Error {
  override name = 'InputError';
  readonly problems: readonly InputProblem[];
  constructor(problems: readonly InputProblem[]) {
    super(problems.map(actionWording).join('; '));
    this.problems = problems;
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function fail(input: string, problem: string, mentions?: readonly string[]): never {
  throw new InputError([{ input, problem, ...(mentions ? { mentions } : {}) }]);
}

function text(raw: RawInputs, name: string): string | undefined {
  const value = raw[name]?.trim();
  return value ? value : undefined;
}

function required(raw: RawInputs, name: string): string {
  return text(raw, name) ?? fail(name, 'is required');
}

function bool(raw: RawInputs, name: string, fallback: boolean): boolean {
  const value = text(raw, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return fail(name, `must be true or false, got "${value}"`);
}

function number(raw: RawInputs, name: string, fallback: number, min: number, max: number): number {
  const value = text(raw, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || !/^\d+(\.\d+)?$/.test(value))
    fail(name, `must be a number, got "${value}"`);
  if (parsed < min || parsed > max) fail(name, `must be between ${min} and ${max}, got ${value}`);
  return parsed;
}

function choice<T extends string>(raw: RawInputs, name: string, allowed: readonly T[], fallback: T): T {
  const value = text(raw, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    fail(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function uuid(name: string, value: string): string {
  if (!uuidPattern.test(value)) fail(name, `must contain UUIDs, got "${value}"`);
  return value.toLowerCase();
}

/** Splits a newline- or comma-separated list, dropping blanks. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

async function parseConfig(raw: RawInputs, problems: InputProblem[]): Promise<RunConfig | undefined> {
  const json = text(raw, 'config');
  let config: RunConfig | undefined;
  if (json !== undefined)
    try {
      config = await parseConfigJson(json);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      problems.push(...error.problems);
    }
  const targetUrl = text(raw, 'target-url');
  if (targetUrl !== undefined) {
    if (isHttpUrl(targetUrl)) config = { ...config, use: { ...config?.use, baseURL: targetUrl } };
    else problems.push({ input: 'target-url', problem: `must be an http(s) URL, got "${targetUrl}"` });
  }
  const browser = text(raw, 'browser');
  if (browser !== undefined) {
    const browsers = ['chromium', 'firefox', 'webkit'] as const;
    const browserName = browser.toLowerCase() as (typeof browsers)[number];
    if (browsers.includes(browserName)) config = { ...config, use: { ...config?.use, browserName } };
    else
      problems.push({
        input: 'browser',
        problem: `must be one of ${browsers.join(', ')}, got "${browserName}"`,
      });
  }
  return config;
}

async function parseConfigJson(json: string): Promise<RunConfig> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    fail('config', 'must be a JSON object (it is not valid JSON)');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('config', 'must be a JSON object');
  const { runConfig } = await import('@stepdeck/contract');
  const parsed = runConfig.safeParse(value);
  if (!parsed.success)
    fail(
      'config',
      `is not a valid run config: ${parsed.error.issues
        .map((issue) => `${['config', ...issue.path.map(String)].join('.')}: ${issue.message}`)
        .join('; ')}`,
    );
  return parsed.data;
}

function parseFailOn(raw: RawInputs): Outcome[] {
  const items = splitList(text(raw, 'fail-on')?.toLowerCase());
  if (items.length === 0) return [...failableOutcomes];
  if (items.length === 1 && items[0] === 'none') return [];
  for (const item of items)
    if (!(failableOutcomes as readonly string[]).includes(item))
      fail(
        'fail-on',
        `must list outcomes among ${failableOutcomes.join(', ')} (or be "none"), got "${item}"`,
      );
  return [...new Set(items)] as Outcome[];
}

export interface InputDefaults {
  /** `GITHUB_WORKFLOW` and `GITHUB_JOB`, for the default comment key. */
  workflow?: string | undefined;
  job?: string | undefined;
  /** Where the run's code came from (src/run-source.ts); `label` is added to it. */
  source?: RunSource | undefined;
}

/**
 * Parses and validates every input. Every problem is found in one pass: the InputError lists
 * them all (`Input "wait" must be…; Input "config" is not a valid run config: config.retries: …`),
 * so fixing three mistakes takes one run, not three.
 */
export async function parseInputs(raw: RawInputs, defaults: InputDefaults = {}): Promise<Inputs> {
  const problems: InputProblem[] = [];
  /** The value, or undefined with the problem recorded. */
  const check = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const apiKey = check(() => required(raw, 'api-key'));
  const baseUrl = check(() => {
    const baseUrlText = required(raw, 'base-url');
    let url: URL;
    try {
      url = new URL(baseUrlText);
    } catch {
      fail('base-url', `must be a URL, got "${baseUrlText}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      fail('base-url', `must be an http(s) URL, got "${baseUrlText}"`);
    return url.toString().replace(/\/+$/, '');
  });
  const projectId = check(() => uuid('project-id', required(raw, 'project-id')));
  const branchText = text(raw, 'branch-id');
  const branchId = check(() => (branchText ? uuid('branch-id', branchText) : undefined));
  const testIdTexts = splitList(text(raw, 'test-ids'));
  const testIds = [
    ...new Set(testIdTexts.map((id) => check(() => uuid('test-ids', id))).filter((id) => id !== undefined)),
  ];
  const tagText = text(raw, 'tag-id');
  check(() => {
    if (testIdTexts.length > 0 && tagText)
      fail('test-ids', 'and "tag-id" are exclusive: set exactly one of them', ['tag-id']);
    if (testIdTexts.length === 0 && !tagText)
      fail('test-ids', 'or "tag-id" is required: set exactly one of them', ['tag-id']);
  });
  const tagId = check(() => (tagText ? uuid('tag-id', tagText) : undefined));
  const config = await parseConfig(raw, problems);
  const environment = text(raw, 'environment');
  check(() => {
    if (environment !== undefined && !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(environment))
      fail(
        'environment',
        `must be an environment name (1 to 32 lowercase letters, digits, "-" or "_"), got "${environment}"`,
      );
  });
  const browser = config?.use?.browserName;
  const retention = text(raw, 'artifact-retention-days');
  const artifactName = text(raw, 'artifact-name');
  check(() => {
    if (artifactName && /[":<>|*?\\/\r\n]/.test(artifactName))
      fail('artifact-name', `must not contain any of " : < > | * ? \\ / or newlines, got "${artifactName}"`);
  });
  const inputs = {
    apiKey,
    baseUrl,
    projectId,
    branchId,
    testIds,
    tagId,
    config,
    environment,
    wait: check(() => bool(raw, 'wait', true)),
    timeoutMs: check(() => Math.round(number(raw, 'timeout-minutes', 30, 1, 360) * 60_000)),
    pollIntervalMs: check(() => Math.round(number(raw, 'poll-interval-seconds', 5, 1, 300) * 1000)),
    failOn: check(() => parseFailOn(raw)),
    artifacts: check(() => choice(raw, 'artifacts', ['all', 'failed', 'none'] as const, 'all')),
    artifactName,
    artifactRetentionDays: check(() =>
      retention === undefined ? undefined : number(raw, 'artifact-retention-days', 0, 1, 90),
    ),
    summary: check(() => bool(raw, 'summary', true)),
    prComment: check(() => choice(raw, 'pr-comment', ['update', 'new', 'off'] as const, 'update')),
    commentMode: check(() => {
      const mode = choice(raw, 'comment-mode', ['per-job', 'aggregate'] as const, 'per-job');
      if (mode === 'aggregate' && text(raw, 'pr-comment')?.toLowerCase() === 'new')
        fail(
          'comment-mode',
          'aggregate keeps one comment up to date: it needs "pr-comment" update, not new',
          ['pr-comment'],
        );
      return mode;
    }),
    commentKey:
      text(raw, 'comment-key') ??
      [defaults.workflow ?? 'stepdeck', defaults.job ?? 'run', browser].filter(Boolean).join('/'),
    githubToken: text(raw, 'github-token'),
    annotations: check(() => bool(raw, 'annotations', true)),
    commitStatus: check(() => bool(raw, 'commit-status', false)),
    rerun: check(() => choice(raw, 'rerun', ['failed', 'all'] as const, 'failed')),
    visualChanges: check(() => choice(raw, 'visual-changes', ['warn', 'fail', 'ignore'] as const, 'warn')),
    metadata: check(() => {
      const label = text(raw, 'label');
      if (label && label.length > 200) fail('label', `must be at most 200 characters, got ${label.length}`);
      const metadata: RunSource = { ...defaults.source, ...(label ? { label } : {}) };
      return Object.keys(metadata).length > 0 ? metadata : undefined;
    }),
  };
  if (problems.length > 0) throw new InputError(problems);
  // No problem recorded: every checked value is set.
  return inputs as Inputs;
}

/** Every input name, as in action.yml. */
export const inputNames = [
  'api-key',
  'base-url',
  'project-id',
  'branch-id',
  'test-ids',
  'tag-id',
  'config',
  'target-url',
  'browser',
  'environment',
  'wait',
  'timeout-minutes',
  'poll-interval-seconds',
  'fail-on',
  'artifacts',
  'artifact-name',
  'artifact-retention-days',
  'summary',
  'pr-comment',
  'comment-key',
  'comment-mode',
  'rerun',
  'github-token',
  'annotations',
  'commit-status',
  'label',
  'visual-changes',
] as const;
