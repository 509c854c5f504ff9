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

/** Copies a folder tree; files that vanish meanwhile and half-written `.part` files are skipped. */
async function copyTree(source: string, target: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const entries = await fs.readdir(source, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  await fs.mkdir(target, { recursive: true, mode: 0o700 });
  for (const entry of entries) {
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory()) {
      const sub = await copyTree(from, to);
      files += sub.files;
      bytes += sub.bytes;
    } else if (entry.isFile() && !entry.name.endsWith('.part')) {
      try {
        await fs.copyFile(from, to);
        bytes += (await fs.stat(to)).size;
        files += 1;
      } catch (error) {
        // Deleted by retention between the listing and the copy: nothing names it any more.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }
  return { files, bytes };
}

/** Backs up DATA_DIR into `target` (missing or empty) while the service may be running. */
export async function backupDataDir(dataDir: string, target: string): Promise<BackupManifest> {
  const databaseFile = path.join(dataDir, DATABASE_FILE);
  await fs.access(databaseFile).catch(() => {
    throw new BackupError(`no database at ${databaseFile}: check DATA_DIR`);
  });
  if (!(await isEmptyOrMissing(target)))
    throw new BackupError(`${target} is not empty: back up into a new folder`);
  await fs.mkdir(target, { recursive: true, mode: 0o700 });

  const source = new SqliteDatabase(databaseFile, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    await source.backup(path.join(target, DATABASE_FILE));
  } finally {
    source.close();
  }
  const copy = new SqliteDatabase(path.join(target, DATABASE_FILE), { readonly: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copied database failed its check: ${String(check)}`);
  } finally {
    copy.close();
  }

  const blobs = await copyTree(path.join(dataDir, BLOBS), path.join(target, BLOBS));
  // The first-start credentials, kept with the data they open (mode 0600 like the original).
  await fs.copyFile(path.join(dataDir, BOOTSTRAP), path.join(target, BOOTSTRAP)).then(
    () => fs.chmod(path.join(target, BOOTSTRAP), 0o600),
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
  await fs.writeFile(path.join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Restores a backup into `dataDir`, which must be missing or empty (the service stopped). */
export async function restoreDataDir(backupDir: string, dataDir: string): Promise<BackupManifest> {
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
  // Restored beside the target then renamed, so a failed restore leaves no half DATA_DIR.
  const staging = `${dataDir.replace(/\/+$/, '')}.restoring-${randomUUID()}`;
  try {
    await fs.mkdir(staging, { recursive: true, mode: 0o700 });
    await fs.copyFile(path.join(backupDir, DATABASE_FILE), path.join(staging, DATABASE_FILE));
    await copyTree(path.join(backupDir, BLOBS), path.join(staging, BLOBS));
    await fs.copyFile(path.join(backupDir, BOOTSTRAP), path.join(staging, BOOTSTRAP)).then(
      () => fs.chmod(path.join(staging, BOOTSTRAP), 0o600),
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      },
    );
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
