/**
 * Redacts and bounds a run's output files in a child process of the run (redact-main.ts,
 * streaming: redact-stream.ts), never in the service: whatever a run produced, the service's
 * memory does not grow with it. The secrets reach the child over its stdin (never argv, which
 * /proc shows to every user, nor a file). With `spawnOptions.uid`/`gid`, the child runs as the
 * run's own user, the owner of the files it rewrites.
 *
 * Caps (config.ts): `ARTIFACT_ENTRY_MAX_BYTES` per file or zip entry, `RUN_ARTIFACTS_MAX_BYTES`
 * per run and `ORG_ARTIFACTS_MAX_BYTES` per organization (its runs' stored artifacts). What
 * passes a cap is left out with a note; passing the run's or the organization's cap is
 * reported as `capError`, the runner error that fails the run.
 */
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type DroppedArtifact,
  partialSuffix,
  type RedactReport,
  type RedactRequest,
} from './redact-report.ts';
import { formatBytes, needlesOf } from './redact-transforms.ts';

const MiB = 1024 * 1024;

/** The defaults of the three settings. */
export const defaultArtifactLimits = {
  entryMaxBytes: 64 * MiB,
  runMaxBytes: 512 * MiB,
  orgMaxBytes: 10 * 1024 * MiB,
} as const;

export interface ArtifactLimits {
  /** `ARTIFACT_ENTRY_MAX_BYTES`: the largest file or zip entry (uncompressed) kept. */
  entryMaxBytes: number;
  /** `RUN_ARTIFACTS_MAX_BYTES`: the most one run stores. */
  runMaxBytes: number;
  /** What the run stored already (a split run: its other batches; the bundle). */
  runStoredBytes?: number;
  /** `ORG_ARTIFACTS_MAX_BYTES`, or the organization's own quota (unset: no organization cap). */
  orgMaxBytes?: number;
  /** How messages name the organization's cap (default `ORG_ARTIFACTS_MAX_BYTES`). */
  orgMaxLabel?: string;
  /** What the organization's runs stored already. */
  orgStoredBytes?: number;
}

export interface RedactSpawnOptions {
  /** The run's user: the child runs as it (the owner of the run's files). */
  uid?: number;
  gid?: number;
  /** The child's whole environment (default: PATH only). Never holds the secrets. */
  env?: Record<string, string>;
  /** The child's folder (default `/`). */
  cwd?: string;
  /** The Node binary (default `process.execPath`). */
  execPath?: string;
}

export interface RedactRunOptions {
  /** Output files and folders of the run, rewritten in place. */
  paths: string[];
  /** Values to remove (with their encoded forms). */
  secrets: string[];
  limits?: ArtifactLimits;
  spawnOptions?: RedactSpawnOptions;
  /** Kills the child (the call then fails). */
  signal?: AbortSignal;
}

export interface RedactRunResult {
  /** Files rewritten or removed. */
  changed: number;
  /** Bytes of the outputs kept. */
  keptBytes: number;
  dropped: DroppedArtifact[];
  /** One line per file or entry left out, for the run's log. */
  notes: string[];
  /** Set when the run's or the organization's cap was passed: the runner error naming it. */
  capError?: string;
  /** Whether the child ran (it does not when there is nothing to redact and everything fits). */
  spawned: boolean;
}

const script = fileURLToPath(new URL('./redact-main.ts', import.meta.url));

/** `SETTING (512 MiB)`. */
export const capLabel = (setting: string, bytes: number) => `${setting} (${formatBytes(bytes)})`;

/** The organization's cap when an install admin set its artifact quota (`orgMaxLabel`). */
export const organizationQuotaLabel = "the organization's artifact quota";

const orgCapLabel = (limits: ArtifactLimits) =>
  capLabel(limits.orgMaxLabel ?? 'ORG_ARTIFACTS_MAX_BYTES', limits.orgMaxBytes ?? 0);

/** The runner error of a run that passed its own or its organization's cap. */
export function artifactCapError(cap: 'run' | 'org', limits: ArtifactLimits, detail: string): string {
  return cap === 'run'
    ? `the run's artifacts passed ${capLabel('RUN_ARTIFACTS_MAX_BYTES', limits.runMaxBytes)}: ${detail}`
    : `the organization's stored run artifacts passed ${orgCapLabel(limits)}: ${detail}`;
}

/** The cap that binds first, and what the run may still keep under it. */
export function artifactBudget(limits: ArtifactLimits): { cap: 'run' | 'org'; bytes: number } {
  const run = limits.runMaxBytes - (limits.runStoredBytes ?? 0);
  const org =
    limits.orgMaxBytes === undefined
      ? Number.POSITIVE_INFINITY
      : limits.orgMaxBytes - (limits.orgStoredBytes ?? 0);
  return org < run ? { cap: 'org', bytes: Math.max(0, org) } : { cap: 'run', bytes: Math.max(0, run) };
}

export async function redactRunOutputs(options: RedactRunOptions): Promise<RedactRunResult> {
  const limits = options.limits ?? { ...defaultArtifactLimits };
  const budget = artifactBudget(limits);
  const needles = needlesOf(options.secrets);
  const paths = options.paths.map((target) => path.resolve(target));
  const base = paths[0] ? path.dirname(paths[0]) : '/';
  if (needles.length === 0 && (await fitsAsIs(paths, limits.entryMaxBytes, budget.bytes)))
    return { changed: 0, keptBytes: 0, dropped: [], notes: [], spawned: false };
  const request: RedactRequest = {
    paths,
    secrets: options.secrets,
    entryMaxBytes: limits.entryMaxBytes,
    entryLabel: capLabel('ARTIFACT_ENTRY_MAX_BYTES', limits.entryMaxBytes),
    totalMaxBytes: budget.bytes,
    totalLabel:
      budget.cap === 'run' ? capLabel('RUN_ARTIFACTS_MAX_BYTES', limits.runMaxBytes) : orgCapLabel(limits),
  };
  let report: RedactReport;
  try {
    report = await runChild(request, options.spawnOptions ?? {}, options.signal);
  } catch (error) {
    await sweepPartials(paths);
    throw error;
  }
  const shown = (file: string) => path.relative(base, file) || path.basename(file);
  const notes = report.dropped.map((dropped) => {
    const size = formatBytes(dropped.bytes);
    if (dropped.reason === 'link')
      return `removed ${shown(dropped.path)}: a link or special file is not stored`;
    if (dropped.entry)
      return `left out ${shown(dropped.path)}:${dropped.entry} (${size}): larger than ${request.entryLabel}`;
    return dropped.reason === 'entry'
      ? `dropped ${shown(dropped.path)} (${size}): larger than ${request.entryLabel}`
      : `dropped ${shown(dropped.path)} (${size}): the artifacts passed ${request.totalLabel}`;
  });
  if (report.droppedCount > report.dropped.length)
    notes.push(`… and ${report.droppedCount - report.dropped.length} more left out`);
  const result: RedactRunResult = {
    changed: report.changed,
    keptBytes: report.keptBytes,
    dropped: report.dropped,
    notes,
    spawned: true,
  };
  if (report.overTotal) {
    const over = report.dropped.filter((dropped) => dropped.reason === 'total');
    const named = over.slice(0, 5).map((dropped) => shown(dropped.path));
    const count = report.dropped.length === report.droppedCount ? over.length : `${over.length}+`;
    result.capError = artifactCapError(
      budget.cap,
      limits,
      `kept ${formatBytes(report.keptBytes)}, left out ${count} file(s): ${named.join(', ')}${over.length > named.length ? ', …' : ''}`,
    );
  }
  return result;
}

/** True when nothing needs the child: no link or special file, each file and the total within the caps. */
async function fitsAsIs(paths: string[], entryMax: number, budget: number): Promise<boolean> {
  let total = 0;
  const visit = async (target: string): Promise<boolean> => {
    let stat: Awaited<ReturnType<typeof fsp.lstat>>;
    try {
      stat = await fsp.lstat(target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw error;
    }
    if (stat.isDirectory()) {
      for (const name of await fsp.readdir(target)) if (!(await visit(path.join(target, name)))) return false;
      return true;
    }
    if (!stat.isFile() || stat.size > entryMax) return false;
    total += stat.size;
    return total <= budget;
  };
  for (const target of paths) if (!(await visit(target))) return false;
  return true;
}

/**
 * Node's compile cache for the child (its TypeScript stripped and compiled once: ~0.15 s less
 * per run): a folder of this process's user, written only by a child running as this user
 * ({@link warmCompileCache}) and only read by children under a run's uid, which cannot write
 * it. Not used if the folder is anyone else's or writable by others (a planted cache would be
 * code the next child runs).
 */
async function compileCacheDir(): Promise<string | undefined> {
  const own = process.getuid?.();
  if (own === undefined) return undefined;
  const dir = path.join(os.tmpdir(), `stepdeck-redact-cache-${own}`);
  try {
    await fsp.mkdir(dir, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const stat = await fsp.lstat(dir);
    return stat.isDirectory() && stat.uid === own && (stat.mode & 0o022) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

let warmed: Promise<void> | undefined;

/** Fills the compile cache once per process, as this process's user (an empty request). */
function warmCompileCache(dir: string, execPath: string): Promise<void> {
  const empty: RedactRequest = {
    paths: [],
    secrets: [],
    entryMaxBytes: 0,
    entryLabel: '',
    totalMaxBytes: 0,
    totalLabel: '',
  };
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_COMPILE_CACHE: dir };
  warmed ??= runChild(empty, { execPath, env }).then(
    () => {},
    () => {},
  );
  return warmed;
}

/** The child's environment: the caller's (default PATH only) and the compile cache. */
async function childEnv(spawnOptions: RedactSpawnOptions): Promise<Record<string, string>> {
  const env = spawnOptions.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (env.NODE_COMPILE_CACHE !== undefined) return env;
  // Checked at every use: a folder removed since (a temp cleaner) is made again, as this user.
  const dir = await compileCacheDir();
  if (!dir) return env;
  await warmCompileCache(dir, spawnOptions.execPath ?? process.execPath);
  return { ...env, NODE_COMPILE_CACHE: dir };
}

async function runChild(
  request: RedactRequest,
  spawnOptions: RedactSpawnOptions,
  signal?: AbortSignal,
): Promise<RedactReport> {
  const env = await childEnv(spawnOptions);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('the redaction was cancelled'));
    const child = spawn(spawnOptions.execPath ?? process.execPath, ['--max-old-space-size=256', script], {
      cwd: spawnOptions.cwd ?? '/',
      env,
      ...(spawnOptions.uid !== undefined ? { uid: spawnOptions.uid } : {}),
      ...(spawnOptions.gid !== undefined ? { gid: spawnOptions.gid } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < 16 * MiB) stdout += chunk;
    });
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 16_384) stderr += chunk;
    });
    // Written once and left open: the child exits when it closes (this process died).
    child.stdin.on('error', () => {});
    child.stdin.write(`${JSON.stringify(request)}\n`);
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    let failed: Error | undefined;
    child.once('error', (error) => {
      failed = error;
    });
    child.once('close', (code, killedBy) => {
      signal?.removeEventListener('abort', onAbort);
      child.stdin.destroy();
      if (signal?.aborted) return reject(new Error('the redaction was cancelled'));
      if (failed) return reject(new Error(`could not start the redaction process: ${failed.message}`));
      if (code !== 0)
        return reject(
          new Error(
            `the redaction process failed (exit ${code ?? killedBy}): ${stderr.trim().slice(0, 2_000)}`,
          ),
        );
      try {
        resolve(JSON.parse(stdout) as RedactReport);
      } catch {
        reject(new Error('the redaction process gave no report'));
      }
    });
  });
}

/** Removes the temporary files of a rewrite that did not finish (the child was killed). */
async function sweepPartials(paths: string[]): Promise<void> {
  const sweep = async (target: string) => {
    const entries = await fsp.readdir(target, { withFileTypes: true, recursive: true }).catch(() => []);
    for (const entry of entries)
      if (entry.name.endsWith(partialSuffix))
        await fsp.rm(path.join(entry.parentPath, entry.name), { force: true }).catch(() => {});
  };
  for (const target of paths) {
    const stat = await fsp.lstat(target).catch(() => null);
    if (stat?.isDirectory()) await sweep(target);
    else {
      const folder = path.dirname(target);
      const prefix = `${path.basename(target)}.`;
      for (const name of await fsp.readdir(folder).catch(() => [] as string[]))
        if (name.startsWith(prefix) && name.endsWith(partialSuffix))
          await fsp.rm(path.join(folder, name), { force: true }).catch(() => {});
    }
  }
}
