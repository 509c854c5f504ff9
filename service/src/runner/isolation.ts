/**
 * How a run is kept apart from the service and from other runs. Three modes:
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
import { killUid, releaseRunUid, takeRunUid } from './run-uids.ts';

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
  // The probe runs under a uid taken from the pool like a run's: a uid in use is killed
  // whole when its run ends (run-uids.ts), which would take a probe under it down too.
  const userns = await withRunUid(root ? settings.uidRange : null, userNamespacesProblem);
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
    const failure = error as { code?: string | number; signal?: string; stderr?: string };
    if (failure.code === 'ENOENT') return null; // no unshare: the sysctls above are all we know
    const reason =
      String(failure.stderr ?? '')
        .trim()
        .split('\n')[0] ||
      (failure.signal ? `unshare was killed by ${failure.signal}` : `unshare exited with ${failure.code}`);
    return `creating a user namespace failed${reason ? `: ${reason}` : ''}`;
  }
}

/** Runs `probe` under a uid of the pool (null when runs get none), given back afterwards. */
async function withRunUid<T>(range: [number, number] | null, probe: (uid: number | null) => Promise<T>) {
  const uid = takeRunUid(range);
  try {
    return await probe(uid);
  } finally {
    if (uid !== null) await releaseRunUid(uid, []);
  }
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

/**
 * Hands a run's folders (created when missing) to its runner's uid, the folder each is in
 * opened to that uid alone ({@link openParentTo}), and returns what takes them back once the
 * run is over, however it ended: every process of the uid killed, the folders the service's
 * again (links dropped), then the uid given back ({@link TakenRunner.release}), the parents
 * closed, and a short TMPDIR of the run's (the second folder, when it is one) removed. The
 * next run under that uid finds nothing of this one. On failure the runner is released.
 */
export async function handRunFolders(
  folders: Array<string | null>,
  runner: { uid: number | null; release(): Promise<void> },
): Promise<() => Promise<void>> {
  const { uid } = runner;
  const closeParents: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closeParents.reverse()) await close();
  };
  try {
    for (const folder of folders) {
      if (!folder) continue;
      closeParents.push(await openParentTo(folder, uid));
      const unreachable = await unreachableFolder(folder, uid);
      if (unreachable) throw new Error(unreachable);
      await fs.promises.mkdir(folder, { recursive: true });
      await giveTo(folder, uid);
    }
  } catch (error) {
    await runner.release();
    await closeAll();
    throw error;
  }
  const [runFolder, shortTmp, ...others] = folders;
  return async () => {
    if (uid !== null) {
      killUid(uid);
      for (const folder of [runFolder, ...others]) if (folder) await reclaim(folder).catch(() => {});
    }
    if (shortTmp) await fs.promises.rm(shortTmp, { recursive: true, force: true }).catch(() => {});
    await runner.release();
    await closeAll();
  };
}
