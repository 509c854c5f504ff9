import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const supervisorScript = fileURLToPath(new URL('./supervisor-main.ts', import.meta.url));

/**
 * Spawns `command` under a supervisor process (supervisor-main.ts) instead of directly. The
 * returned child is the supervisor: it leads the run's process group, passes the command's
 * output through and exits with its code, and kills the whole run when this process dies,
 * however it dies: its stdin is a pipe from here, closed by the kernel with this process.
 */
export function spawnSupervised(
  command: string,
  args: string[],
  options: Pick<SpawnOptions, 'cwd' | 'env' | 'uid' | 'gid'> & {
    /** A fourth pipe (`child.stdio[3]`) that reaches the command as its fd 3 (standby.ts). */
    jobPipe?: boolean;
  },
): ChildProcess {
  const { jobPipe, ...spawnOptions } = options;
  const supervisorArgs = jobPipe ? [supervisorScript, '--job-fd'] : [supervisorScript];
  const child = spawn(process.execPath, [...supervisorArgs, command, ...args], {
    ...spawnOptions,
    detached: true,
    stdio: jobPipe ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
  });
  // Never written or ended: only this process's death closes it.
  child.stdin?.on('error', () => {});
  return child;
}

/**
 * Ends whatever survives of a run on this host after its service or worker died without
 * its supervisor doing so (the supervisor killed too, e.g. `kill -9` of the whole group):
 * every process whose working directory or environment lies in the run's work folder, and
 * the recorded process group when one of its members is such a process (so a reused group
 * id is never hit). Returns the number of processes signalled.
 */
export function endSurvivors(workDir: string, processGroup: number | null): number {
  const root = path.resolve(workDir);
  const inside = (value: string) => value === root || value.startsWith(`${root}${path.sep}`);
  let ended = 0;
  let groupConfirmed = false;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let belongs = false;
    try {
      belongs = inside(readlinkSync(`/proc/${pid}/cwd`));
    } catch {}
    if (!belongs) {
      try {
        belongs = readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`${root}${path.sep}`);
      } catch {}
    }
    if (!belongs) continue;
    if (processGroup !== null && groupOf(pid) === processGroup) groupConfirmed = true;
    try {
      process.kill(pid, 'SIGKILL');
      ended += 1;
    } catch {}
  }
  if (groupConfirmed && processGroup !== null) {
    try {
      process.kill(-processGroup, 'SIGKILL');
    } catch {}
  }
  return ended;
}

function groupOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** True while a process with this pid exists (whoever it is). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
