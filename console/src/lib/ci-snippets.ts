/** What a CI job runs: one test or directory (or several), or every active test with a tag. */
export type CiTarget = { kind: 'tests'; ids: readonly string[] } | { kind: 'tag'; id: string };

export interface CiSetup {
  /** The service as the reader reached it (the console's own origin). */
  baseUrl: string;
  projectId: string;
  /** Absent: the project's default branch (the action's default too). */
  branchId?: string | undefined;
  target: CiTarget;
}

/** The CLI as the README runs it (the package's `stepdeck` bin, fetched by npx). */
export const cliCommand = 'npx github:stepdeck/stepdeck';

/** The action's `with:` inputs for a setup, in the order action.yml lists them. */
function inputsOf(setup: CiSetup): Array<[string, string]> {
  return [
    ['base-url', setup.baseUrl],
    ['project-id', setup.projectId],
    ...(setup.branchId ? [['branch-id', setup.branchId] as [string, string]] : []),
    setup.target.kind === 'tag' ? ['tag-id', setup.target.id] : ['test-ids', setup.target.ids.join(',')],
  ];
}

/** A GitHub Actions step running the action; the key is the repository secret `STEPDECK_API_KEY`. */
export function workflowStep(setup: CiSetup): string {
  return [
    '- name: Stepdeck tests',
    '  uses: stepdeck/stepdeck@v1',
    '  with:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, written as is
    '    api-key: ${{ secrets.STEPDECK_API_KEY }}',
    ...inputsOf(setup).map(([name, value]) => `    ${name}: ${value}`),
  ].join('\n');
}

/** Quotes a value for a POSIX shell only when it needs it (UUIDs and URLs mostly do not). */
const shellWord = (value: string) =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;

/**
 * The CLI line for a terminal or any CI: the key in `STEPDECK_API_KEY` (the key itself once one
 * was made here, else a placeholder), then `run` with the same inputs as flags, waiting for the
 * result (the exit code says pass or fail).
 */
export function cliLines(setup: CiSetup, apiKey?: string): string {
  const flags = inputsOf(setup).map(([name, value]) => `--${name} ${shellWord(value)}`);
  return [
    `export STEPDECK_API_KEY=${apiKey ? shellWord(apiKey) : 'sd_...'}`,
    `${cliCommand} run ${flags.join(' ')} --wait`,
  ].join('\n');
}
