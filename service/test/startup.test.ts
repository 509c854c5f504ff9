import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp } from './helper.ts';

const serverFile = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const workerFile = fileURLToPath(new URL('../src/worker.ts', import.meta.url));
const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-startup-'));
  tempDirs.push(dir);
  return dir;
};

/** A port held by another listener for the duration of `use`. */
async function withTakenPort<T>(use: (port: number) => T): Promise<T> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    return use((holder.address() as net.AddressInfo).port);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}

function start(file: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [file], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    // Generous: start-up on a loaded 2-core machine can take tens of seconds.
    timeout: 110_000,
  });
}

/** Exit 1, one line on stderr naming the setting, no stack trace, nothing set up. */
function expectOneLine(result: ReturnType<typeof start>, setting: string, dataDir?: string) {
  expect(result.status, result.stderr).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(setting);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).not.toContain('Keep these');
  if (dataDir) expect(fs.existsSync(path.join(dataDir, 'bootstrap.json'))).toBe(false);
}

describe('start-up errors', { timeout: 240_000 }, () => {
  it('a taken SMTP_PORT: one line naming it, exit 1, no bootstrap written', async () => {
    const dataDir = tempDir();
    const result = await withTakenPort((port) =>
      start(serverFile, { DATA_DIR: dataDir, PORT: '0', SMTP_PORT: String(port) }),
    );
    expectOneLine(result, 'SMTP_PORT', dataDir);
    expect(result.stderr).toMatch(/already in use/);
  });

  it('a taken PORT: one line naming it, exit 1, no bootstrap written', async () => {
    const dataDir = tempDir();
    const result = await withTakenPort((port) =>
      start(serverFile, { DATA_DIR: dataDir, PORT: String(port), SMTP_PORT: '0' }),
    );
    expectOneLine(result, 'PORT', dataDir);
    expect(result.stderr).toMatch(/^PORT \d+ is already in use/);
  });

  it('an unwritable DATA_DIR: one line naming it, exit 1', () => {
    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, '');
    const result = start(serverFile, { DATA_DIR: path.join(file, 'data'), PORT: '0', SMTP_PORT: '0' });
    expectOneLine(result, 'DATA_DIR');
  });

  it('an unreachable database: one line naming DATABASE_URL without its password, exit 1', async () => {
    const dataDir = tempDir();
    const closed = await withTakenPort((port) => port); // free again once returned
    const result = start(serverFile, {
      DATA_DIR: dataDir,
      PORT: '0',
      SMTP_PORT: '0',
      DATABASE_URL: `postgres://stepdeck:very-secret-pw@127.0.0.1:${closed}/stepdeck`,
    });
    expectOneLine(result, 'DATABASE_URL', dataDir);
    expect(result.stderr).not.toContain('very-secret-pw');
    const worker = start(workerFile, {
      DATA_DIR: dataDir,
      DATABASE_URL: `postgres://stepdeck:very-secret-pw@127.0.0.1:${closed}/stepdeck`,
    });
    expectOneLine(worker, 'DATABASE_URL', dataDir);
  });

  it('a SECRET_ENCRYPTION_KEY that does not open the stored secrets: one line naming it, exit 1', async () => {
    const dataDir = tempDir();
    const [sealing, other] = [randomBytes(32).toString('base64'), randomBytes(32).toString('hex')];
    const t = await createTestApp({ dataDir, env: { SECRET_ENCRYPTION_KEY: sealing } });
    const stored = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'TOKEN', value: 'sealed-value' },
    });
    expect(stored.statusCode).toBe(201);
    await t.close();
    const result = start(serverFile, {
      DATA_DIR: dataDir,
      PORT: '0',
      SMTP_PORT: '0',
      SECRET_ENCRYPTION_KEY: other,
    });
    expectOneLine(result, 'SECRET_ENCRYPTION_KEY');
    expect(result.stderr).toMatch(/^Cannot open the stored project secrets: /);
    for (const key of [sealing, other]) expect(result.stderr).not.toContain(key);
  });

  it('a missing Chromium: one line naming CHROMIUM_PATH, exit 1', () => {
    const dataDir = tempDir();
    const result = start(serverFile, {
      DATA_DIR: dataDir,
      PORT: '0',
      SMTP_PORT: '0',
      CHROMIUM_PATH: '/nonexistent/chromium',
    });
    expectOneLine(result, 'CHROMIUM_PATH', dataDir);
  });

  it.runIf(process.getuid?.() === 0)(
    'a browser the runs’ uids cannot reach: one line naming RUNNER_ISOLATION and the folder, exit 1',
    () => {
      const dataDir = tempDir();
      // A Chromium in a folder only the service may enter (a home folder, say).
      const outer = tempDir();
      fs.chmodSync(outer, 0o711);
      const hidden = path.join(outer, 'private');
      fs.mkdirSync(hidden, { mode: 0o700 });
      const chromium = path.join(hidden, 'chromium');
      fs.writeFileSync(chromium, '#!/bin/sh\necho Chromium 1.2.3.4\n', { mode: 0o755 });
      const result = start(serverFile, {
        DATA_DIR: dataDir,
        PORT: '0',
        SMTP_PORT: '0',
        CHROMIUM_PATH: chromium,
      });
      expectOneLine(result, 'RUNNER_ISOLATION', dataDir);
      expect(result.stderr).toContain(`cannot reach ${chromium} (${hidden} is mode 0700)`);
      expect(result.stderr).toContain(`chmod o+x ${hidden}`);
    },
  );
});
