import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError, backupDataDir, restoreDataDir } from '../src/backup.ts';
import { createTestApp, type TestApp } from './helper.ts';

const modeOf = (file: string) => fs.statSync(file).mode & 0o7777;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...filesUnder(full)] : [full];
  });
}

describe('backup and restore modes, and crafted backups', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-backup-modes-'));
  let live: TestApp;
  let backup: string;

  beforeAll(async () => {
    live = await createTestApp();
    const blob = path.join(live.dataDir, 'blobs', 'runs', 'r1', 'trace.zip');
    fs.mkdirSync(path.dirname(blob), { recursive: true });
    fs.writeFileSync(blob, 'blob bytes');
    fs.chmodSync(blob, 0o4755); // setuid and world-readable in the source
    backup = path.join(scratch, 'backup');
    fs.mkdirSync(backup, { mode: 0o755 });
    fs.chmodSync(backup, 0o755); // an existing, empty, open folder
    await backupDataDir(live.dataDir, backup);
  });
  afterAll(async () => {
    await live?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('leaves every folder 0700 and every file 0600, whatever the folder and sources were', () => {
    expect(modeOf(backup)).toBe(0o700);
    for (const file of filesUnder(backup)) {
      expect(modeOf(file), file).toBe(fs.statSync(file).isDirectory() ? 0o700 : 0o600);
    }
  });

  it('restores regular files with fixed modes (no setuid bit survives)', async () => {
    const target = path.join(scratch, 'restored');
    await restoreDataDir(backup, target);
    const blob = path.join(target, 'blobs', 'runs', 'r1', 'trace.zip');
    expect(fs.readFileSync(blob, 'utf8')).toBe('blob bytes');
    for (const file of filesUnder(target)) {
      expect(modeOf(file), file).toBe(fs.statSync(file).isDirectory() ? 0o700 : 0o600);
    }
  });

  /** A copy of the good backup, changed by `craft`. */
  function crafted(name: string, craft: (dir: string) => void) {
    const dir = path.join(scratch, name);
    fs.cpSync(backup, dir, { recursive: true });
    craft(dir);
    return dir;
  }

  it('refuses a symlinked bootstrap.json, a symlink among the blobs, and a database that is not SQLite', async () => {
    const secret = path.join(scratch, 'outside-secret');
    fs.writeFileSync(secret, 'not yours');
    const cases: Array<[string, (dir: string) => void, RegExp]> = [
      [
        'linked-bootstrap',
        (dir) => {
          fs.rmSync(path.join(dir, 'bootstrap.json'), { force: true });
          fs.symlinkSync(secret, path.join(dir, 'bootstrap.json'));
        },
        /bootstrap\.json is not a regular file/,
      ],
      [
        'linked-blob',
        (dir) => fs.symlinkSync(secret, path.join(dir, 'blobs', 'runs', 'r1', 'link.zip')),
        /link\.zip is not a regular file or folder/,
      ],
      [
        'not-sqlite',
        (dir) => fs.writeFileSync(path.join(dir, 'stepdeck.sqlite'), 'SQLite format 2, honestly'),
        /is not an SQLite database/,
      ],
      [
        'corrupt-sqlite',
        (dir) => {
          const file = path.join(dir, 'stepdeck.sqlite');
          const bytes = fs.readFileSync(file);
          // Keep the header, wreck the pages after the first one.
          bytes.fill(0xa5, 4096, Math.min(bytes.length, 4096 * 6));
          fs.writeFileSync(file, bytes);
        },
        /integrity check|could not be checked/,
      ],
    ];
    for (const [name, craft, expected] of cases) {
      const target = path.join(scratch, `target-${name}`);
      const error = await restoreDataDir(crafted(name, craft), target).catch((caught: unknown) => caught);
      expect(error, name).toBeInstanceOf(BackupError);
      expect((error as Error).message, name).toMatch(expected);
      // Nothing was left behind.
      expect(fs.existsSync(target), name).toBe(false);
    }
    expect(fs.readFileSync(secret, 'utf8')).toBe('not yours');
  });
});
