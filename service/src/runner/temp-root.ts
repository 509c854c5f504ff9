/**
 * Where runs' temporary folders live: Chromium puts its singleton socket under TMPDIR, and a
 * Unix socket path has at most 107 bytes.
 */
import fs from 'node:fs';
import path from 'node:path';

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
