import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/**
 * The few workflow commands the action needs before it knows its inputs are valid, without
 * loading @actions/core (the cold start stays small). Same protocol as @actions/core.
 */

const escapeData = (value: string) => value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** `INPUT_<NAME>` as the runner sets it: upper-cased, spaces → `_`, dashes kept; trimmed. */
export function getInput(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

export function getState(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return env[`STATE_${name}`] ?? '';
}

/** Appends to `$GITHUB_STATE` (the post step reads it back as `STATE_<name>`). */
export function saveState(name: string, value: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.GITHUB_STATE;
  if (file) {
    const delimiter = `ghadelimiter_${randomUUID()}`;
    // The toolkit's own guard (@actions/core prepareKeyValueMessage): a name or value holding
    // the delimiter would end the entry early and let the rest be read as further entries.
    if (name.includes(delimiter))
      throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
    if (value.includes(delimiter))
      throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
    fs.appendFileSync(file, `${name}<<${delimiter}${os.EOL}${value}${os.EOL}${delimiter}${os.EOL}`);
  } else process.stdout.write(`::save-state name=${name}::${escapeData(value)}${os.EOL}`);
}

/** Masks a value in the rest of the job's log. */
export function setSecret(value: string): void {
  process.stdout.write(`::add-mask::${escapeData(value)}${os.EOL}`);
}

/** An error annotation and exit code 1, like `core.setFailed`. */
export function setFailed(message: string): void {
  process.exitCode = 1;
  process.stdout.write(`::error::${escapeData(message)}${os.EOL}`);
}
