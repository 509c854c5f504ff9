/**
 * The supervisor process between the service and `playwright test` (see supervisor.ts):
 *
 *   node supervisor-main.ts [--job-fd] <command> [args...]
 *
 * It leads its own process group (spawned detached), runs the command in that group with
 * stdout/stderr passed through, and exits with the command's code. Its stdin is a pipe from
 * the service that is never written: when it closes (the service ended, SIGKILL included)
 * the supervisor kills every process of the run (its group, the descendants it saw, and
 * their groups: Chromium leads its own) and then itself. With `--job-fd`, the command also
 * gets this process's file descriptor 3 (a standby runner's job pipe, standby.ts).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const passJobFd = process.argv[2] === '--job-fd';
const [command, ...args] = process.argv.slice(passJobFd ? 3 : 2);
if (!command) {
  process.stderr.write('usage: supervisor-main.ts [--job-fd] <command> [args...]\n');
  process.exit(2);
}

/** pid → start time (field 22 of /proc/<pid>/stat), so a reused pid is never taken for ours. */
const seen = new Map<number, string>();

function stat(pid: number): { ppid: number; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields follow the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** Every live descendant of this process, recorded in `seen`. */
function scan(): void {
  const children = new Map<number, number[]>();
  const starts = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const info = stat(pid);
    if (!info) continue;
    starts.set(pid, info.start);
    const list = children.get(info.ppid) ?? [];
    list.push(pid);
    children.set(info.ppid, list);
  }
  const queue = [process.pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const child of children.get(current) ?? []) {
      seen.set(child, starts.get(child) ?? '');
      queue.push(child);
    }
  }
}

function kill(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // already gone
  }
}

let ending = false;
/** Kills the run's processes: those seen (if still the same process), their groups, then ours. */
function endAll(): void {
  if (ending) return;
  ending = true;
  try {
    scan();
  } catch {}
  for (const [pid, start] of seen) {
    if (stat(pid)?.start !== start) continue;
    kill(-pid); // a browser leads its own process group
    kill(pid);
  }
  kill(-process.pid); // our group, this process included
  process.exit(137);
}

const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', ...(passJobFd ? [3] : [])] });
// Browsers that outlive their Playwright worker are re-parented away from this tree: the
// periodic scan remembers them while they are still descendants.
const scanner = setInterval(() => {
  try {
    scan();
  } catch {}
}, 500);

process.stdin.on('end', endAll);
process.stdin.on('close', endAll);
process.stdin.on('error', endAll);
process.stdin.resume();
// The executor stops a run by signalling this whole group (SIGTERM, then SIGKILL): the
// command gets the same signal and its grace; this process just waits for it to exit.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => {});

child.on('error', (error) => {
  process.stderr.write(`could not start ${command}: ${error.message}\n`);
  clearInterval(scanner);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  clearInterval(scanner);
  process.stdin.removeAllListeners();
  process.stdin.destroy();
  process.exitCode = code ?? (signal ? 128 + 9 : 1);
  // Leftovers of the command (a crashed worker's browser) are the executor's to end: it
  // still sees them as this process's descendants until this process exits.
  setImmediate(() => process.exit());
});
