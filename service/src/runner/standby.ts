import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { isolationStatus } from './isolation.ts';
import { BROWSER_ENV } from './prelaunch.ts';
import { killUid, releaseRunUid, takeRunUid } from './run-uids.ts';
import type { StandbyJob } from './standby-runner-main.ts';
import { processAlive, spawnSupervised } from './supervisor.ts';
import { runTempRoot } from './temp-root.ts';

const standbyScript = fileURLToPath(new URL('./standby-runner-main.ts', import.meta.url));

/**
 * Standby runners: `playwright test` processes started before their run is known, so that a
 * run or batch does not wait for Node to start and Playwright's runner to load (~0.3 s of a
 * one-test run here, 0.6–0.9 s when four batches start at once on two cores), nor its first
 * test worker to load playwright-core (~0.3 s more; standby-worker-main.ts;
 * docs/orchestrated-runs.md), nor that worker to launch Chromium (prelaunch.ts).
 *
 * Each waits in a folder of its own (its HOME and TMPDIR, holding the waiting browser's
 * profile) under the standby folder, removed when its process group ends; folders left by a
 * service that was killed are removed by the next one to start a standby there.
 *
 * Each is supervised like any run (its own process group, killed with this process) and takes
 * exactly one run (standby-runner-main.ts), then exits. A second after this process's last
 * execution ended (never while one runs: loading Playwright takes CPU from running tests), the
 * pool is refilled up to the most executions this process has had at once (at most
 * {@link maxStandbys}); a standby unused for {@link standbyIdleMs} (`RUNNER_STANDBY_IDLE_SECONDS`)
 * exits. A run that finds no standby starts one the same way and hands it its job at once: the
 * same process, only not warmed up.
 */

/** The environment Playwright reads while it loads (the browsers' folder, caches, colours). */
const LOAD_TIME_ENV = [
  'PATH',
  'PLAYWRIGHT_BROWSERS_PATH',
  'PLAYWRIGHT_TRANSFORM_CACHE_DIR',
  'NODE_COMPILE_CACHE',
];
/**
 * The Chromium a standby's waiting worker launches ahead, and the environment it launches it
 * with (prelaunch.ts). Not part of which standby a run takes: a run whose differ closes that
 * browser and launches its own.
 */
const PRELAUNCH_ENV = ['CHROMIUM_PATH', ...BROWSER_ENV];
const maxStandbys = 8;
/** `RUNNER_STANDBY_IDLE_SECONDS` when unset (config.ts), and this runner's until configured. */
export const defaultStandbyIdleSeconds = 300;
/** How long an unused standby waits before it exits; 0 keeps none ({@link configureStandbyRunners}). */
let standbyIdleMs = defaultStandbyIdleSeconds * 1000;
const refillDelayMs = 1_000;

interface Standby {
  child: ChildProcess;
  /** Ends it when unused for {@link standbyIdleMs} (here, so that it leaves the pool first). */
  idle?: NodeJS.Timeout;
  /** The load-time environment it started with: a run takes one started as it would be. */
  key: string;
  /** The uid it runs under (isolation.ts); null when runs share the service's. */
  uid: number | null;
  /** What it overrides in its job's environment: with a uid of its own, its own caches. */
  own: Record<string, string>;
  /** Gives its uid back and removes its folder, once (isolation.ts, releaseRunUid). */
  release: () => Promise<void>;
  /** A run took it: that run gives the uid back when it has read its results. */
  taken: boolean;
}

/** The runner a run took: its process group, and the uid its files must belong to. */
export interface TakenRunner {
  child: ChildProcess;
  uid: number | null;
  /** Hands the run its job: the runner becomes that run's `playwright test`. */
  start(job: StandbyJob): void;
  /** Ends whatever is left of the uid's processes and gives the uid back (call once the run is read). */
  release(): Promise<void>;
}

const pool: Standby[] = [];
let running = 0;
let mostAtOnce = 0;
/** Bumped by {@link stopStandbyRunners}: a refill scheduled before it does nothing. */
let generation = 0;

function pick(env: Record<string, string>, keys: string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of keys) if (env[key] !== undefined) picked[key] = env[key];
  return picked;
}

/** What a standby starts with: the load-time environment and the browser to launch (no secret). */
function standbyEnv(env: Record<string, string>): Record<string, string> {
  return { FORCE_COLOR: '0', ...pick(env, [...LOAD_TIME_ENV, ...PRELAUNCH_ENV]) };
}

/** Which standbys a run may take: those started with its load-time environment. */
function keyOf(env: Record<string, string>): string {
  return JSON.stringify(pick(env, LOAD_TIME_ENV));
}

/**
 * Spawns a standby that waits in a folder of its own under `parent` (its HOME and TMPDIR:
 * the pre-launched browser's profile lives there), removed when its process group ends.
 * With a uid of its own (isolation.ts) the folder and its caches belong to that uid, and the
 * caches live in the folder: nothing a run writes is ever executed by another run.
 */
function spawnStandby(cli: string, env: Record<string, string>, parent: string): Standby {
  // Traversable by the runs' uids, listable by none of them.
  fs.mkdirSync(parent, { recursive: true, mode: 0o711 });
  const uid = takeRunUid(isolationStatus().mode === 'uid' ? isolationStatus().uidRange : null);
  let home: string;
  const own: Record<string, string> = {};
  try {
    home = fs.mkdtempSync(path.join(parent, `${process.pid}-`));
    if (uid !== null) {
      own.PLAYWRIGHT_TRANSFORM_CACHE_DIR = path.join(home, '.cache', 'transform');
      own.NODE_COMPILE_CACHE = path.join(home, '.cache', 'node');
      for (const dir of Object.values(own)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const target of [home, path.join(home, '.cache'), ...Object.values(own)])
        fs.lchownSync(target, uid, uid);
    }
  } catch (error) {
    if (uid !== null) void releaseRunUid(uid, []);
    throw error;
  }
  const child = spawnSupervised(process.execPath, [standbyScript, cli], {
    cwd: home,
    env: { ...env, ...own, HOME: home, TMPDIR: home },
    jobPipe: true,
    ...(uid !== null ? { uid, gid: uid } : {}),
  });
  // A pipe whose process was killed may end in ECONNRESET: the exit code tells the run what
  // happened; an unhandled stream error would end this process.
  for (const stream of child.stdio) stream?.on('error', () => {});
  let released: Promise<void> | undefined;
  const release = () => {
    released ??=
      uid === null
        ? fs.promises.rm(home, { recursive: true, force: true, maxRetries: 3 }).catch(() => {})
        : releaseRunUid(uid, [home]).catch(() => {});
    return released;
  };
  const standby: Standby = { child, key: keyOf(env), uid, own, release, taken: false };
  child.once('exit', () => {
    const index = pool.indexOf(standby);
    if (index >= 0) pool.splice(index, 1);
    // A run that took it gives the uid back itself, after it has read its results.
    if (!standby.taken) void release();
  });
  child.once('error', () => {});
  return standby;
}

/** Keeps a waiting standby from holding this process open. */
function detach(child: ChildProcess, attached: boolean): void {
  for (const stream of child.stdio) {
    const socket = stream as { ref?: () => void; unref?: () => void } | null;
    if (attached) socket?.ref?.();
    else socket?.unref?.();
  }
  if (attached) child.ref();
  else child.unref();
}

/**
 * Takes a runner for one run: a standby runner when one waits, started with the same
 * load-time environment, else a new one. The run prepares its folder for the runner's uid,
 * then hands it the job ({@link TakenRunner.start}); the child is the supervisor (the run's
 * process group), as `spawnSupervised` returns it.
 */
export function takeRunner(cli: string, jobEnv: Record<string, string>, standbyHome: string): TakenRunner {
  const env = standbyEnv(jobEnv);
  const key = keyOf(env);
  const index = pool.findIndex(
    (standby) => standby.key === key && standby.child.exitCode === null && standby.child.signalCode === null,
  );
  const standby =
    index >= 0 ? (pool.splice(index, 1)[0] as Standby) : spawnForJob(cli, jobEnv, env, standbyHome);
  standby.taken = true;
  clearTimeout(standby.idle);
  detach(standby.child, true);
  running += 1;
  mostAtOnce = Math.max(mostAtOnce, running);
  const scheduled = generation;
  standby.child.once('exit', () => {
    running -= 1;
    if (running === 0) setTimeout(() => refill(cli, env, standbyHome, scheduled), refillDelayMs).unref();
  });
  return {
    child: standby.child,
    uid: standby.uid,
    start: (job) => {
      const own = { ...job, env: { ...job.env, ...standby.own } };
      (standby.child.stdio[3] as Writable | null)?.end(JSON.stringify(own));
    },
    release: async () => {
      // A runner that never got its job (its run failed to prepare) is ended here.
      const { child } = standby;
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
      if (standby.uid !== null) killUid(standby.uid);
      await standby.release();
    },
  };
}

/** {@link takeRunner} and its start at once, for a run whose folder needs no handing over. */
export function startPlaywrightTest(cli: string, job: StandbyJob, standbyHome: string): ChildProcess {
  const runner = takeRunner(cli, job.env, standbyHome);
  runner.start(job);
  runner.child.once('exit', () => void runner.release());
  return runner.child;
}

/** A runner for this job now: in the standby folder, or in the run's own when that cannot be made. */
function spawnForJob(
  cli: string,
  jobEnv: Record<string, string>,
  env: Record<string, string>,
  standbyHome: string,
): Standby {
  try {
    sweepAbandoned(standbyHome);
    return spawnStandby(cli, env, standbyHome);
  } catch (error) {
    if (!jobEnv.HOME) throw error;
    return spawnStandby(cli, env, jobEnv.HOME);
  }
}

function refill(cli: string, env: Record<string, string>, standbyHome: string, scheduled: number): void {
  // Only while nothing runs here: loading Playwright takes CPU that running tests would miss.
  if (scheduled !== generation || running > 0) return;
  // Standbys of another environment (another browsers' folder) would never be taken now.
  const key = keyOf(env);
  for (const standby of pool.filter((entry) => entry.key !== key)) retire(standby);
  const wanted = standbyIdleMs > 0 ? Math.min(mostAtOnce, maxStandbys) - pool.length : 0;
  try {
    if (wanted > 0) sweepAbandoned(standbyHome);
    for (let count = 0; count < wanted; count += 1) {
      const standby = spawnStandby(cli, env, standbyHome);
      detach(standby.child, false);
      standby.idle = setTimeout(() => retire(standby), standbyIdleMs).unref();
      pool.push(standby);
    }
  } catch {
    // No standby folder (an unwritable TMPDIR): runs start their runner themselves.
  }
}

/**
 * Removes the folders of standbys whose service process is gone (killed before it could
 * remove them): named `<pid>-…` by the process that made them, which is never this one's
 * live folder nor that of another live service sharing the cache.
 */
function sweepAbandoned(parent: string): void {
  const entries = fs.existsSync(parent) ? fs.readdirSync(parent) : [];
  for (const entry of entries) {
    const owner = /^(\d+)-/.exec(entry)?.[1];
    if (!owner || Number(owner) === process.pid || processAlive(Number(owner))) continue;
    try {
      fs.rmSync(path.join(parent, entry), { recursive: true, force: true });
    } catch {
      // Someone else's, or going: left for a later sweep, never in the way of a standby.
    }
  }
}

/** Takes an unused standby out of the pool, then ends it: never one a run is taking. */
function retire(standby: Standby): void {
  const index = pool.indexOf(standby);
  if (index < 0) return;
  pool.splice(index, 1);
  killGroup(standby.child);
}

/**
 * How long a standby may wait unused (the runner's `RUNNER_STANDBY_IDLE_SECONDS`): memory held
 * against start-up saved. 0 keeps none: each run then starts its runner itself.
 */
export function configureStandbyRunners(options: { idleMs: number }): void {
  standbyIdleMs = options.idleMs;
  if (standbyIdleMs > 0) return;
  for (const standby of [...pool]) retire(standby);
}

/** The supervisors (process groups) of the standbys waiting here, oldest first. */
export function waitingStandbys(): number[] {
  return pool.map((standby) => standby.child.pid).filter((pid): pid is number => pid !== undefined);
}

/** Ends the waiting standbys (the runner stops); runs in progress are not touched. */
export function stopStandbyRunners(): void {
  generation += 1;
  mostAtOnce = 0;
  for (const standby of pool.splice(0)) {
    clearTimeout(standby.idle);
    killGroup(standby.child);
  }
}

/** The supervisor and its standby runner (one process group). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
}

/**
 * Where waiting standbys live (each in a folder of its own, its TMPDIR: short enough for
 * Chromium's socket whatever the service's TMPDIR, isolation.ts) until their job names the
 * run's folder. One per service user, so that two installs on a host never sweep each other's.
 */
export function standbyHome(): string {
  return path.join(runTempRoot(), `stepdeck-waiting-${process.getuid?.() ?? 'user'}`);
}
