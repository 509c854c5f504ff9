import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export { freePort } from '../../helper.ts';

/** Helpers for tests that run the service as a real process (`node src/server.ts`, `src/worker.ts`). */

export const serviceDir = path.resolve(import.meta.dirname, '../../..');
export const serverFile = path.join(serviceDir, 'src/server.ts');
export const workerFile = path.join(serviceDir, 'src/worker.ts');

export interface ProcessInfo {
  pid: number;
  ppid: number;
  start: string;
  args: string;
}

function processes(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({ pid, ppid: Number(fields[1]), start: fields[19] ?? '', args });
    } catch {}
  }
  return out;
}

/** Every descendant of `root` now (the run's supervisor, playwright, its workers, Chromium). */
export function descendantsOf(root: number): ProcessInfo[] {
  const all = processes();
  const found: ProcessInfo[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const info of all.filter((candidate) => candidate.ppid === current)) {
      found.push(info);
      queue.push(info.pid);
    }
  }
  return found;
}

export const alive = (info: ProcessInfo) => {
  try {
    const stat = fs.readFileSync(`/proc/${info.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] === info.start && fields[0] !== 'Z';
  } catch {
    return false;
  }
};

export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A `node src/server.ts` or `src/worker.ts` process; resolves once it is up. */
export async function startProcess(file: string, env: Record<string, string>, ready: RegExp) {
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`process exited first:\n${output}`);
      return ready.test(output) || undefined;
    },
    90_000,
    `${path.basename(file)} to start`,
  );
  /**
   * The address the service listens on, from its log: start it with `PORT: '0'` and any free
   * port is taken at bind time (a port picked beforehand can be taken meanwhile). The service
   * logs it before "written to" (the bootstrap credentials), which comes once every listener is up.
   */
  const listeningAt = () => {
    const address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (!address) throw new Error(`no "Server listening at" in the output:\n${output}`);
    return address;
  };
  return { child, exited, output: () => output, listeningAt };
}

/**
 * Whether a process is a Playwright test worker working for a run: standby runners waiting for
 * their next run (runner/standby.ts) hold a worker too (standby-worker-main.ts, named after the
 * worker entry it will load), but it waits in its standby's folder (`…/standby/<pid>-…`)
 * until it gets the run's.
 */
export function isRunWorker(info: { pid: number; args: string }): boolean {
  if (!info.args.includes('workerProcessEntry')) return false;
  try {
    // A standby's worker waits in its own folder under the runner's standby folder (standby.ts).
    return !/^stepdeck-waiting-/.test(path.basename(path.dirname(fs.readlinkSync(`/proc/${info.pid}/cwd`))));
  } catch {
    return false;
  }
}

/**
 * The process group of a run in progress started by one of `parents`: a group led by their
 * child (the supervisor) that holds a Playwright worker working for a run ({@link isRunWorker}).
 */
export function runGroupOf(parents: number[]): number | undefined {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='])
    .toString()
    .split('\n')
    .map((row) => {
      const [pid, ppid, pgid, ...args] = row.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), args: args.join(' ') };
    });
  const leaders = rows.filter((row) => parents.includes(row.ppid) && row.pgid === row.pid);
  return leaders.find((leader) => rows.some((row) => row.pgid === leader.pid && isRunWorker(row)))?.pid;
}

/** The live (not zombie) processes of a process group. */
export function groupMembers(pgid: number): number[] {
  return execFileSync('ps', ['-eo', 'pid=,pgid=,stat='])
    .toString()
    .split('\n')
    .map((row) => row.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && !String(stat).startsWith('Z'))
    .map(([pid]) => Number(pid));
}
