/**
 * The uids runs execute under in isolation.ts's `uid` mode: taken one per execution from
 * `RUNNER_UID_RANGE`, and given back only once nothing of the execution is left.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runTempRoot } from './temp-root.ts';

/** Uids this process holds. */
const taken = new Set<number>();

/**
 * Where the holders of uids are recorded, one folder per uid holding the holder's pid: a
 * service and its workers on one host share `RUNNER_UID_RANGE`, and `mkdir` is atomic.
 */
function uidLocks(): string {
  return path.join(runTempRoot(), `stepdeck-uids-${process.getuid?.() ?? 'user'}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** Claims the uid for this process: free, or held by a process that is gone. */
function claim(locks: string, uid: number): boolean {
  const lock = path.join(locks, String(uid));
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.mkdirSync(lock, { mode: 0o700 });
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      const holder = Number(
        fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'r' }).trim() || 0,
      );
      // A holder that is alive (or still writing its pid) keeps it.
      if (holder === 0 || holder === process.pid || alive(holder)) return false;
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  return false;
}

/**
 * A uid of its own for one execution, from `range` (isolation.ts: the `uid` mode's
 * `RUNNER_UID_RANGE`; null when runs do not get one: `sandbox`, `off`).
 * Whatever a former holder left running under it is killed first.
 */
export function takeRunUid(range: [number, number] | null): number | null {
  if (!range) return null;
  const [first, last] = range;
  const locks = uidLocks();
  fs.mkdirSync(locks, { recursive: true, mode: 0o700 });
  for (let uid = first; uid <= last; uid += 1) {
    if (taken.has(uid)) continue;
    let claimed = false;
    try {
      claimed = claim(locks, uid);
    } catch {
      claimed = false;
    }
    if (!claimed) continue;
    taken.add(uid);
    killUid(uid);
    return uid;
  }
  throw new Error(
    `RUNNER_UID_RANGE ${first}-${last} has no free uid: widen it (it needs one per run and standby at once)`,
  );
}

/**
 * Gives a uid back once nothing of it is left: every process of that uid is killed (a
 * process that left the run's process group included) and its files in `folders` are
 * removed, so the next run under it starts with nothing of this one.
 */
export async function releaseRunUid(uid: number, folders: string[]): Promise<void> {
  try {
    for (let round = 0; round < 5 && killUid(uid) > 0; round += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    for (const folder of folders)
      await fs.promises.rm(folder, { recursive: true, force: true, maxRetries: 3 });
  } finally {
    taken.delete(uid);
    fs.rmSync(path.join(uidLocks(), String(uid)), { recursive: true, force: true });
  }
}

/** SIGKILLs every process whose real or effective uid is `uid`; returns how many were signalled. */
export function killUid(uid: number): number {
  let killed = 0;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    let owners: number[] = [];
    try {
      const line = /^Uid:\s+(.*)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
      owners = line.split(/\s+/).map(Number);
    } catch {
      continue;
    }
    if (!owners.slice(0, 2).includes(uid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {}
  }
  return killed;
}
