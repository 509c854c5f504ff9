import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { z } from 'zod';
import { ConfigError, loadConfig } from './config.ts';

/**
 * Backup and restore of the embedded default (SQLite + blobs under DATA_DIR) while it runs.
 *
 *   npm run backup -w service -- <backup-dir>    (the service may keep running)
 *   npm run restore -w service -- <backup-dir>   (into an empty DATA_DIR, service stopped)
 *
 * The database is copied first with SQLite's online backup API (a consistent snapshot even
 * with writers in WAL mode), then the blob folder. Blobs are written before the rows that name
 * them, so every blob the snapshot names is already on disk when the folder is copied; a blob
 * written after the snapshot is an unreferenced extra that retention removes later.
 * PostgreSQL and S3 deployments back up with their own tools (docs/operations.md).
 */

const DATABASE_FILE = 'stepdeck.sqlite';
const BLOBS = 'blobs';
const BOOTSTRAP = 'bootstrap.json';
const MANIFEST = 'stepdeck-backup.json';

/** `stepdeck-backup.json`, written last by a backup: checked before a restore touches anything. */
const backupManifest = z.object({
  format: z.literal(1),
  createdAt: z.string(),
  database: z.string(),
  blobs: z.number().int().min(0),
  bytes: z.number().int().min(0),
});
export type BackupManifest = z.infer<typeof backupManifest>;

export class BackupError extends Error {}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  const entries = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.length === 0;
}

/** Folders 0700 and files 0600, whatever the source's modes (no setuid bit, no group or world access). */
const folderMode = 0o700;
const fileMode = 0o600;

/** A folder made (or found) with exactly {@link folderMode}: an existing one keeps no looser mode. */
async function privateFolder(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: folderMode });
  await fs.chmod(dir, folderMode);
}

/** Copies one regular file and fixes its mode to {@link fileMode}. */
async function copyPrivateFile(from: string, to: string): Promise<void> {
  await fs.copyFile(from, to);
  await fs.chmod(to, fileMode);
}

/**
 * Copies a folder tree of regular files and folders; files that vanish meanwhile and
 * half-written `.part` files are skipped. Anything else (a symbolic link, a device, a socket)
 * is skipped on backup and refused on restore (`refuseOthers`): a crafted backup never makes
 * the restored DATA_DIR point elsewhere.
 */
async function copyTree(
  source: string,
  target: string,
  options: { refuseOthers: boolean } = { refuseOthers: false },
): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const entries = await fs.readdir(source, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  await privateFolder(target);
  for (const entry of entries) {
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory()) {
      const sub = await copyTree(from, to, options);
      files += sub.files;
      bytes += sub.bytes;
    } else if (entry.isFile()) {
      if (entry.name.endsWith('.part')) continue;
      try {
        await copyPrivateFile(from, to);
        bytes += (await fs.stat(to)).size;
        files += 1;
      } catch (error) {
        // Deleted by retention between the listing and the copy: nothing names it any more.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    } else if (options.refuseOthers) {
      throw new BackupError(`${from} is not a regular file or folder: refusing to restore it`);
    }
  }
  return { files, bytes };
}

/** The backup's own entries must be regular files (or the blob folder), never links. */
async function requireRegular(file: string, kind: 'file' | 'folder', optional = false): Promise<boolean> {
  const stat = await fs.lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' && optional) return undefined;
    throw new BackupError(`${file} is missing from the backup`);
  });
  if (!stat) return false;
  const regular = kind === 'file' ? stat.isFile() : stat.isDirectory();
  if (!regular) throw new BackupError(`${file} is not a regular ${kind} (a link?): refusing to restore it`);
  return true;
}

const sqliteHeader = Buffer.from('SQLite format 3\u0000', 'latin1');

/** Refuses a database file that is not SQLite, or whose integrity check fails. */
async function requireSoundDatabase(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  const header = Buffer.alloc(sqliteHeader.length);
  try {
    await handle.read(header, 0, header.length, 0);
  } finally {
    await handle.close();
  }
  if (!header.equals(sqliteHeader)) throw new BackupError(`${file} is not an SQLite database`);
  let result: unknown;
  try {
    const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    try {
      result = database.pragma('integrity_check', { simple: true });
    } finally {
      database.close();
    }
  } catch (error) {
    throw new BackupError(`${file} could not be checked: ${(error as Error).message}`);
  }
  if (result !== 'ok') throw new BackupError(`${file} failed SQLite's integrity check: ${String(result)}`);
}

/** Backs up DATA_DIR into `target` (missing or empty) while the service may be running. */
export async function backupDataDir(dataDir: string, target: string): Promise<BackupManifest> {
  const databaseFile = path.join(dataDir, DATABASE_FILE);
  await fs.access(databaseFile).catch(() => {
    throw new BackupError(`no database at ${databaseFile}: check DATA_DIR`);
  });
  if (!(await isEmptyOrMissing(target)))
    throw new BackupError(`${target} is not empty: back up into a new folder`);
  // 0700 even when the folder existed (empty) with a looser mode: the copy holds every secret.
  await privateFolder(target);

  const source = new SqliteDatabase(databaseFile, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    await source.backup(path.join(target, DATABASE_FILE));
  } finally {
    source.close();
  }
  await fs.chmod(path.join(target, DATABASE_FILE), fileMode);
  const copy = new SqliteDatabase(path.join(target, DATABASE_FILE), { readonly: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copied database failed its check: ${String(check)}`);
  } finally {
    copy.close();
  }

  const blobs = await copyTree(path.join(dataDir, BLOBS), path.join(target, BLOBS));
  // The first-start credentials, kept with the data they open (mode 0600 like the original).
  await copyPrivateFile(path.join(dataDir, BOOTSTRAP), path.join(target, BOOTSTRAP)).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    },
  );
  const manifest: BackupManifest = {
    format: 1,
    createdAt: new Date().toISOString(),
    database: DATABASE_FILE,
    blobs: blobs.files,
    bytes: blobs.bytes + (await fs.stat(path.join(target, DATABASE_FILE))).size,
  };
  await fs.writeFile(path.join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: fileMode,
  });
  await fs.chmod(path.join(target, MANIFEST), fileMode);
  return manifest;
}

/** Restores a backup into `dataDir`, which must be missing or empty (the service stopped). */
export async function restoreDataDir(backupDir: string, dataDir: string): Promise<BackupManifest> {
  await requireRegular(path.join(backupDir, MANIFEST), 'file').catch((error: Error) => {
    if (error.message.endsWith('missing from the backup'))
      throw new BackupError(`${backupDir} is not a Stepdeck backup (no ${MANIFEST})`);
    throw error;
  });
  const stored: unknown = await fs
    .readFile(path.join(backupDir, MANIFEST), 'utf8')
    .then((text) => JSON.parse(text))
    .catch(() => {
      throw new BackupError(`${backupDir} is not a Stepdeck backup (no ${MANIFEST})`);
    });
  const checked = backupManifest.safeParse(stored);
  if (!checked.success)
    throw new BackupError(
      `${path.join(backupDir, MANIFEST)} is not a manifest this version restores: ${z.prettifyError(checked.error).replaceAll('\n', '; ')}`,
    );
  const manifest = checked.data;
  if (!(await isEmptyOrMissing(dataDir))) {
    throw new BackupError(`DATA_DIR ${dataDir} is not empty: restore into a new, empty DATA_DIR`);
  }
  // Only regular files are taken from the backup: a link would make the restored DATA_DIR
  // read or overwrite something else.
  await requireRegular(path.join(backupDir, DATABASE_FILE), 'file');
  const hasBlobs = await requireRegular(path.join(backupDir, BLOBS), 'folder', true);
  const hasBootstrap = await requireRegular(path.join(backupDir, BOOTSTRAP), 'file', true);
  // Restored beside the target then renamed, so a failed restore leaves no half DATA_DIR.
  const staging = `${dataDir.replace(/\/+$/, '')}.restoring-${randomUUID()}`;
  try {
    await privateFolder(staging);
    await copyPrivateFile(path.join(backupDir, DATABASE_FILE), path.join(staging, DATABASE_FILE));
    // Checked on the copy: what is accepted is exactly what was checked.
    await requireSoundDatabase(path.join(staging, DATABASE_FILE));
    if (hasBlobs)
      await copyTree(path.join(backupDir, BLOBS), path.join(staging, BLOBS), { refuseOthers: true });
    if (hasBootstrap) await copyPrivateFile(path.join(backupDir, BOOTSTRAP), path.join(staging, BOOTSTRAP));
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rename(staging, dataDir);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
  return manifest;
}

async function main(): Promise<void> {
  const [command, target] = process.argv.slice(2);
  if ((command !== 'backup' && command !== 'restore') || !target) {
    process.stderr.write('usage: node src/backup.ts backup|restore <backup-dir>\n');
    process.exit(2);
  }
  try {
    const config = loadConfig();
    if (config.databaseUrl) {
      throw new BackupError(
        'DATABASE_URL is set: back up PostgreSQL with pg_dump and the blobs with your S3 tools (docs/operations.md)',
      );
    }
    // npm run -w changes the directory; a relative folder means the one the command was typed in.
    const dir = path.resolve(process.env.INIT_CWD ?? process.cwd(), target);
    if (command === 'backup') {
      const manifest = await backupDataDir(config.dataDir, dir);
      const note = config.s3 ? ' (blobs are in S3_BUCKET: back them up with your S3 tools)' : '';
      process.stdout.write(
        `backed up ${config.dataDir} to ${dir}: database and ${manifest.blobs} blobs${note}\n`,
      );
    } else {
      const manifest = await restoreDataDir(dir, config.dataDir);
      process.stdout.write(
        `restored the backup of ${manifest.createdAt} into ${config.dataDir}: database and ${manifest.blobs} blobs\n`,
      );
    }
  } catch (error) {
    if (error instanceof BackupError || error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

if (import.meta.main) await main();
