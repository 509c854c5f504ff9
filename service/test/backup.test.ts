import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, type TestApp } from './helper.ts';

const run = promisify(execFile);
const SERVICE = path.resolve(import.meta.dirname, '..');

function withoutDatabaseUrl(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _unused, ...env } = process.env;
  return env;
}

/** The CLI as an operator runs it, in its own process, beside the running service. */
function cli(command: 'backup' | 'restore', dir: string, dataDir: string) {
  return run(process.execPath, ['src/backup.ts', command, dir], {
    cwd: SERVICE,
    env: { ...withoutDatabaseUrl(), DATA_DIR: dataDir, INIT_CWD: SERVICE },
  });
}

describe('backup and restore of the embedded default while it runs', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-backup-'));
  let live: TestApp;
  let cookie: string;
  const blobs = new Map<string, Buffer>();

  async function addTag(name: string) {
    const response = await consoleCall(live.app, cookie, {
      method: 'POST',
      url: '/console/v1/tags',
      payload: { name },
    });
    if (response.statusCode !== 201 && response.statusCode !== 200) throw new Error(response.body);
  }

  beforeAll(async () => {
    live = await createTestApp({ dataDir: path.join(scratch, 'live') });
    cookie = await live.consoleCookie();
    for (let i = 0; i < 40; i += 1) await addTag(`before-${i}`);
    for (let i = 0; i < 20; i += 1) {
      const key = `artifacts/run-${i}/trace.zip`;
      const body = randomBytes(50_000 + i);
      await live.ctx.blobs.put(key, body);
      blobs.set(key, body);
    }
  });
  afterAll(async () => {
    await live?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('backs up under concurrent writes, restores into a fresh DATA_DIR and reads the data back', async () => {
    const backupDir = path.join(scratch, 'backup');
    let writing = true;
    let during = 0;
    const writer = (async () => {
      while (writing) {
        await addTag(`during-${during}`);
        await live.ctx.blobs.put(`artifacts/during/${during}.bin`, randomBytes(10_000));
        during += 1;
      }
    })();
    const backup = await cli('backup', backupDir, live.dataDir);
    writing = false;
    await writer;
    expect(backup.stdout).toContain(`backed up ${live.dataDir} to ${backupDir}: database and`);
    expect(during).toBeGreaterThan(0);
    expect(fs.statSync(backupDir).mode & 0o777).toBe(0o700);
    // The admin has signed in (consoleCookie above), so bootstrap.json (the first credentials) is gone.
    expect(fs.existsSync(path.join(backupDir, 'bootstrap.json'))).toBe(false);

    // Restore refuses a DATA_DIR that already holds data.
    await expect(cli('restore', backupDir, live.dataDir)).rejects.toMatchObject({
      stderr: expect.stringContaining('is not empty: restore into a new, empty DATA_DIR'),
    });

    const freshDir = path.join(scratch, 'restored');
    const restored = await cli('restore', backupDir, freshDir);
    expect(restored.stdout).toContain(`into ${freshDir}`);

    const copy = await createTestApp({ dataDir: freshDir, bootstrap: live.bootstrap });
    try {
      // The live install's key and admin password work on the copy.
      expect((await copy.api({ method: 'GET', url: '/v1/tests' })).statusCode).toBe(200);
      const tags = await consoleCall(copy.app, await copy.consoleCookie(), {
        method: 'GET',
        url: '/console/v1/tags',
      });
      expect(tags.statusCode).toBe(200);
      const names = (tags.json().data as Array<{ name: string }>).map((tag) => tag.name);
      for (let i = 0; i < 40; i += 1) expect(names).toContain(`before-${i}`);
      for (const [key, body] of blobs) expect((await copy.ctx.blobs.get(key))?.equals(body)).toBe(true);
      // The restored copy is a working database: it takes writes.
      const added = await consoleCall(copy.app, await copy.consoleCookie(), {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: 'after-restore' },
      });
      expect([200, 201]).toContain(added.statusCode);
    } finally {
      await copy.close();
    }
  });

  it('refuses a backup whose manifest it cannot read, with one clear line, and restores nothing', async () => {
    const foreign = path.join(scratch, 'foreign');
    fs.mkdirSync(foreign);
    const manifestFile = path.join(foreign, 'stepdeck-backup.json');
    fs.writeFileSync(manifestFile, JSON.stringify({ format: 2, createdAt: 'now', database: 'x', blobs: 0 }));
    const target = path.join(scratch, 'restored-foreign');
    const refused = await cli('restore', foreign, target).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    const line = `${manifestFile} is not a manifest this version restores: `;
    expect(refused?.stderr.startsWith(line), refused?.stderr).toBe(true);
    // Names what is wrong: the format it does not know and the field that is missing.
    expect(refused?.stderr).toMatch(/format.*bytes/s);
    expect(refused?.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('refuses a non-empty target and a DATABASE_URL deployment with one clear line', async () => {
    const used = path.join(scratch, 'used');
    fs.mkdirSync(used);
    fs.writeFileSync(path.join(used, 'x'), 'x');
    await expect(cli('backup', used, live.dataDir)).rejects.toMatchObject({
      code: 1,
      stderr: `${used} is not empty: back up into a new folder\n`,
    });
    await expect(
      run(process.execPath, ['src/backup.ts', 'backup', path.join(scratch, 'pg')], {
        cwd: SERVICE,
        env: { ...process.env, DATA_DIR: live.dataDir, DATABASE_URL: 'postgres://x@127.0.0.1:1/x' },
      }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('DATABASE_URL is set: back up PostgreSQL'),
    });
  });
});
