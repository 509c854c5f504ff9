import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { runTempRoot } from '../../runner/temp-root.ts';

/**
 * The temporary folder of a run or batch. Each one this process executes at once gets a
 * numbered folder that the next run or batch of the same kind reuses once it is free (emptied
 * in between), instead of a new random one: Playwright keys its transform cache by the files'
 * absolute paths, so the generated config, runtime and specs found at the same path compile
 * from the cache (shared by every run, see `runnerCacheDir`) instead of through Babel at each
 * start. The process's random tag keeps the names of two processes (or of a dead process
 * whose pid came back) apart, so a sweep after a dead runner never touches a live folder.
 * The folders live under `runTempRoot()`: short enough for Chromium's socket path whatever
 * the service's TMPDIR.
 */

const processTag = randomBytes(4).toString('hex');
const inUse = new Map<string, Set<number>>();

export interface WorkDir {
  path: string;
  /** Frees the number for the next run or batch (call after the folder is removed). */
  release(): void;
}

export async function acquireWorkDir(prefix: 'stepdeck-run' | 'stepdeck-batch'): Promise<WorkDir> {
  const taken = inUse.get(prefix) ?? new Set<number>();
  inUse.set(prefix, taken);
  let number = 0;
  while (taken.has(number)) number += 1;
  taken.add(number);
  const release = () => taken.delete(number);
  const root = runTempRoot();
  const dir = path.join(root, `${prefix}-${process.pid}-${processTag}-${number}`);
  try {
    await fsp.rm(dir, { recursive: true, force: true });
    // Not recursive: a folder someone else created meanwhile is refused, never adopted.
    await fsp.mkdir(dir, { mode: 0o700 });
    return { path: dir, release };
  } catch {
    release();
    return { path: await fsp.mkdtemp(path.join(root, `${prefix}-`)), release: () => {} };
  }
}
