import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';

/**
 * Ending a Playwright run's whole process tree (Linux /proc): its process group, and the
 * browsers that lead groups of their own, SIGTERM first and SIGKILL after a grace period.
 */

const KILL_GRACE_MS = 1_000;

/** Every live descendant of `pid` (Linux /proc), so browsers in their own groups die too. */
export async function descendants(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  const entries = await fs.readdir('/proc').catch(() => [] as string[]);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const ppid = Number(statFields(stat)[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const child of children.get(current) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

export function signalAll(pids: number[], groupLeader: number, signal: NodeJS.Signals): void {
  const send = (target: number) => {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  };
  send(-groupLeader);
  for (const pid of pids) {
    send(-pid); // browsers lead their own process groups
    send(pid);
  }
}

/** Ends the child's process group and every descendant: SIGTERM, then SIGKILL after a grace period. */
export async function killTree(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const known = await descendants(pid);
  signalAll(known, pid, 'SIGTERM');
  const timer = new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS));
  await Promise.race([exited, timer]);
  const late = await descendants(pid).catch(() => [] as number[]);
  const tree = [...new Set([pid, ...known, ...late])];
  signalAll(tree, pid, 'SIGKILL');
  // A cancel is reported once the browser is really gone, not while it is still dying.
  const deadline = Date.now() + KILL_GRACE_MS;
  while (tree.some(isRunning) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The fields of /proc/<pid>/stat after the command name: state, ppid, ... */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** True while a process exists and is not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))[0] !== 'Z';
  } catch {
    return false;
  }
}
