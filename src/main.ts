import { type Inputs, inputNames, parseInputs } from './inputs.ts';
import { runSourceOf } from './run-source.ts';
import { getInput, setFailed, setSecret } from './workflow-commands.ts';

export async function readInputs(env: NodeJS.ProcessEnv = process.env): Promise<Inputs> {
  const raw = Object.fromEntries(inputNames.map((name) => [name, getInput(name, env)]));
  // Masked before validation, so even a rejected key never reaches the log.
  if (raw['api-key']) setSecret(raw['api-key']);
  return parseInputs(raw, { workflow: env.GITHUB_WORKFLOW, job: env.GITHUB_JOB, source: runSourceOf(env) });
}

/**
 * The action: inputs → trigger → wait → collect → report → outputs (src/action.ts). The
 * inputs are checked first with light modules only; the rest (HTTP client, @actions/*) loads
 * once they are valid.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let inputs: Inputs;
  try {
    inputs = await readInputs(env);
  } catch (error) {
    const apiKey = getInput('api-key', env);
    const message = error instanceof Error ? error.message : String(error);
    setFailed(apiKey ? message.replaceAll(apiKey, '***') : message);
    return;
  }
  const { execute } = await import('./action.ts');
  await execute(inputs, env);
}
