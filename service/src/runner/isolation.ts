/**
 * How a run is kept apart from the service and from other runs (issue 39). Three modes:
 *
 * - `uid` (the service runs as root, `RUNNER_ISOLATION=on`, the default): every execution
 *   (a standby runner and the run it takes) runs under a user id of its own, taken from
 *   `RUNNER_UID_RANGE` and given back only after every process of that uid has been killed and
 *   every file it owns in the runner's folders removed. Chromium runs with its own sandbox (a
 *   renderer in its own user, PID and network namespaces, under seccomp). A run can then read
 *   neither `DATA_DIR` (0700, the service's), nor `/proc/<service>/environ`, nor another
 *   run's folder, caches or processes (each belongs to another uid).
 * - `sandbox` (the service is not root): runs share the service's uid, as no other can be
 *   taken without privileges; Chromium's sandbox still contains a compromised page. Logged as
 *   a warning at every start and shown on `/readyz`.
 * - `off` (`RUNNER_ISOLATION=off`, the install owner's explicit choice): neither. Chromium then
 *   runs with `--no-sandbox`. Logged as a warning at every start and shown on `/readyz`.
 *
 * Nothing falls back silently: when Chromium's sandbox cannot start on this host (no
 * unprivileged user namespaces), or when the runner's uid cannot reach what a run needs
 * (Node, Playwright, the browser), start-up fails with one line naming the setting.
 *
 * Why a uid per execution and not one runner user: runs write caches (Playwright's transform
 * cache, Node's compile cache) that a later run executes; with one shared user, code that
 * escaped one tenant's browser could plant code for the next tenant's run. A uid's caches are
 * its own and are wiped with it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SANDBOX_ENV_VAR } from './compiler/constants.ts';

const execFileAsync = promisify(execFile);

export type IsolationMode = 'uid' | 'sandbox' | 'off';

export interface IsolationStatus {
  mode: IsolationMode;
  /** Chromium runs with its own sandbox. */
  sandbox: boolean;
  /** The uids runs take (`uid` mode). */
  uidRange: [number, number] | null;
  /** What the mode leaves open, for the start-up warning and `/readyz` (null in `uid` mode). */
  warning: string | null;
}

export interface IsolationSettings {
  isolation: 'on' | 'off';
  uidRange: [number, number];
}

/** `RUNNER_UID_RANGE` when unset: far above any login, system, systemd-dynamic or subuid range. */
export const defaultUidRange: [number, number] = [2_000_000_000, 2_000_009_999];

let status: IsolationStatus = {
  mode: 'off',
  sandbox: false,
  uidRange: null,
  warning: 'runner isolation is not configured',
};

/** The mode decided at start-up ({@link checkIsolation}). */
export function isolationStatus(): IsolationStatus {
  return status;
}

/** Sets the mode without the start-up checks (tests of the other modes, and the off switch). */
export function setIsolationStatus(next: IsolationStatus): void {
  status = next;
}

const isRoot = () => process.getuid?.() === 0;

/**
 * Decides the mode and proves it works here: Chromium's sandbox needs unprivileged user
 * namespaces; the runner's uid must reach Node, Playwright and the browser. Throws one line
 * (an {@link Error} whose message names the setting) when `on` cannot be honoured.
 */
export async function checkIsolation(
  settings: IsolationSettings,
  needs: { paths: string[] },
): Promise<IsolationStatus> {
  if (settings.isolation === 'off') {
    status = {
      mode: 'off',
      sandbox: false,
      uidRange: null,
      warning:
        'RUNNER_ISOLATION=off: tests run without Chromium’s sandbox, as the service’s own user, and can read what the service can read',
    };
    return status;
  }
  const root = isRoot();
  const probeUid = root ? settings.uidRange[0] : null;
  if (probeUid !== null) {
    const unreachable = await firstUnreachable(needs.paths, probeUid);
    if (unreachable)
      throw new Error(
        `RUNNER_ISOLATION: runs execute as uid ${probeUid} (RUNNER_UID_RANGE), which cannot reach ${unreachable.path} (${unreachable.blocker} is mode ${unreachable.mode}): run \`chmod o+x ${unreachable.blocker}\`, install Stepdeck outside it, or set RUNNER_ISOLATION=off`,
      );
  }
  const userns = await userNamespacesProblem(probeUid);
  if (userns)
    throw new Error(
      `RUNNER_ISOLATION: Chromium’s sandbox cannot start on this host (${userns}): allow unprivileged user namespaces, or set RUNNER_ISOLATION=off to run tests without it`,
    );
  status = root
    ? { mode: 'uid', sandbox: true, uidRange: settings.uidRange, warning: null }
    : {
        mode: 'sandbox',
        sandbox: true,
        uidRange: null,
        warning:
          'runs share the service’s user (it is not root, so it cannot give them their own): Chromium’s sandbox contains pages, but a test can read what the service can read',
      };
  return status;
}

interface Unreachable {
  path: string;
  blocker: string;
  mode: string;
}

/**
 * The first path the uid cannot reach, and the folder in the way: checked by permission bits
 * as the kernel applies them to a process of that uid whose only group is the uid's own number.
 */
async function firstUnreachable(paths: string[], uid: number): Promise<Unreachable | null> {
  for (const target of paths) {
    const resolved = path.resolve(target);
    const parts = resolved.split(path.sep).filter(Boolean);
    let current: string = path.sep;
    for (let index = 0; index <= parts.length; index += 1) {
      let stat: fs.Stats;
      try {
        stat = fs.statSync(current);
      } catch {
        break; // a missing path is not this check's to report
      }
      const last = index === parts.length;
      const needed = stat.isDirectory() ? 0o001 : last ? 0o004 : 0o001;
      // The uid's group is its own number (takeRunUid): owner, then group, then other bits.
      const shift = stat.uid === uid ? 6 : stat.gid === uid ? 3 : 0;
      const allowed = (stat.mode & (needed << shift)) !== 0;
      if (!allowed)
        return { path: resolved, blocker: current, mode: (stat.mode & 0o7777).toString(8).padStart(4, '0') };
      if (last) break;
      current = path.join(current, parts[index] as string);
    }
  }
  return null;
}

/**
 * Why the uid cannot enter `folder` (a run folder inside a folder private to the service), or
 * null: checked before a run starts, so it fails saying so rather than with EACCES from deep
 * inside Playwright.
 */
export async function unreachableFolder(folder: string, uid: number | null): Promise<string | null> {
  if (uid === null) return null;
  const found = await firstUnreachable([path.dirname(path.resolve(folder))], uid);
  return found
    ? `the run folder ${folder} is inside ${found.blocker} (mode ${found.mode}), which the run's uid ${uid} cannot enter`
    : null;
}

/**
 * Lets the run's uid enter the folder its run folder is in, when the service made that folder
 * private (the runner's work folder holds the run's project beside its bundle): its group
 * becomes the run's, mode 0710, so that this run's uid alone may enter it, and no other run
 * (each has another uid and group) nor anyone may list it. Returns what puts it back.
 */
export async function openParentTo(folder: string, uid: number | null): Promise<() => Promise<void>> {
  const nothing = async () => {};
  if (uid === null) return nothing;
  const parent = path.dirname(path.resolve(folder));
  const stat = await fs.promises.stat(parent).catch(() => null);
  if (!stat || stat.uid !== process.getuid?.() || (stat.mode & 0o001) !== 0) return nothing;
  await fs.promises.chown(parent, stat.uid, uid);
  await fs.promises.chmod(parent, 0o710);
  return async () => {
    await fs.promises.chown(parent, stat.uid, stat.gid).catch(() => {});
    await fs.promises.chmod(parent, stat.mode & 0o7777).catch(() => {});
  };
}

/** Why unprivileged user namespaces (Chromium's sandbox) are unavailable, or null. */
async function userNamespacesProblem(uid: number | null): Promise<string | null> {
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch {
      return null;
    }
  };
  if (read('/proc/sys/user/max_user_namespaces') === '0') return '/proc/sys/user/max_user_namespaces is 0';
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0')
    return '/proc/sys/kernel/unprivileged_userns_clone is 0';
  // The kernel's answer itself, as the runner's uid (AppArmor or seccomp may refuse what the
  // sysctls allow): util-linux's unshare, present on every Debian-based image.
  try {
    await execFileAsync('unshare', ['--user', '--map-root-user', 'true'], {
      timeout: 10_000,
      ...(uid !== null ? { uid, gid: uid } : {}),
    });
    return null;
  } catch (error) {
    const failure = error as { code?: string | number; stderr?: string };
    if (failure.code === 'ENOENT') return null; // no unshare: the sysctls above are all we know
    const reason = String(failure.stderr ?? '')
      .trim()
      .split('\n')[0];
    return `creating a user namespace failed${reason ? `: ${reason}` : ''}`;
  }
}

/** The kernel's limit on a Unix socket path (sun_path, 108 bytes with its NUL). */
const socketPathLimit = 107;
/** What Chromium appends to its TMPDIR for its singleton socket. */
const chromiumSocketSuffix = '/.org.chromium.Chromium.XXXXXX/SingletonSocket'.length;
/** The longest run TMPDIR under a root ({@link runTempRoot}): `/stepdeck-batch-<pid>-<tag>-<n>/.tmp`. */
const longestRunFolder = '/stepdeck-batch-4194304-0123abcd-999/.tmp'.length;

/** True when Chromium's socket fits under this TMPDIR. */
export function fitsChromiumSocket(tmpdir: string): boolean {
  return path.resolve(tmpdir).length + chromiumSocketSuffix <= socketPathLimit;
}

/**
 * Where runs' folders (their TMPDIR, where Chromium puts its socket) live: the service's
 * temporary folder when short enough for Chromium's socket path, else `/tmp`, else
 * `/dev/shm`. A long TMPDIR (a data volume, some container platforms) used to abort every
 * browser run (SIGABRT: the socket path passed 107 bytes).
 */
export function runTempRoot(tmpdir = process.env.TMPDIR || '/tmp'): string {
  const fits = (root: string) => root.length + longestRunFolder + chromiumSocketSuffix <= socketPathLimit;
  const resolved = path.resolve(tmpdir);
  for (const candidate of [resolved, '/tmp', '/dev/shm']) {
    if (!fits(candidate)) continue;
    try {
      fs.accessSync(candidate, fs.constants.W_OK | fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  throw new Error(
    `TMPDIR ${resolved} is too long for Chromium's socket path (${socketPathLimit} bytes) and neither /tmp nor /dev/shm is writable: set TMPDIR to a shorter folder`,
  );
}

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
 * A uid of its own for one execution (null when runs do not get one: `sandbox`, `off`).
 * Whatever a former holder left running under it is killed first.
 */
export function takeRunUid(): number | null {
  if (status.mode !== 'uid' || !status.uidRange) return null;
  const [first, last] = status.uidRange;
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

/** Hands a folder the service made to the run's uid (everything in it, links themselves). */
export async function giveTo(folder: string, uid: number | null): Promise<void> {
  if (uid === null) return;
  const walk = async (target: string): Promise<void> => {
    await fs.promises.lchown(target, uid, uid);
    const stat = await fs.promises.lstat(target);
    if (!stat.isDirectory()) return;
    for (const entry of await fs.promises.readdir(target)) await walk(path.join(target, entry));
  };
  await walk(folder);
}

/** The environment flag the compiled config and the standby's pre-launch read (`chromiumSandbox`). */
export const SANDBOX_ENV = SANDBOX_ENV_VAR;

/** The run's value of {@link SANDBOX_ENV}. */
export function sandboxEnv(): Record<string, string> {
  return status.sandbox ? { [SANDBOX_ENV]: '1' } : {};
}

/**
 * Takes a run's folder back for the service once the run's processes are gone: everything
 * belongs to the service's user again, and every symbolic link is removed (but the project's
 * own `node_modules` link), so that reading results never follows a link the run planted.
 */
export async function reclaim(folder: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const root = path.resolve(folder);
  const walk = async (target: string): Promise<void> => {
    const stat = await fs.promises.lstat(target).catch(() => null);
    if (!stat) return;
    if (stat.isSymbolicLink()) {
      if (target !== path.join(root, 'node_modules')) await fs.promises.rm(target, { force: true });
      return;
    }
    await fs.promises.lchown(target, uid, gid);
    if (!stat.isDirectory()) return;
    for (const entry of await fs.promises.readdir(target)) await walk(path.join(target, entry));
  };
  await walk(root);
}
