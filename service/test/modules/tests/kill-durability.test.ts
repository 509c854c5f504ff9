import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BootstrapInfo } from '../../../src/bootstrap.ts';
import { createPostgresDatabase, databaseKinds } from '../../helper.ts';

/**
 * Durability: `kill -9` of the service during concurrent creates. Every create answered 2xx
 * before the kill is there after a restart, on both databases.
 */

const serverScript = path.resolve(import.meta.dirname, '../../../src/server.ts');

// Starting the service takes up to ~20 s on a loaded 2-core machine; it starts twice.
describe.each(databaseKinds)('kill -9 during concurrent creates (%s)', (database) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-kill-'));
  let dropDatabase: (() => Promise<void>) | undefined;
  let child: ChildProcess | undefined;

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await dropDatabase?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // On port 0, and the address read from its log: a port picked beforehand can be taken by
  // another process before the service binds it (it was, once, in CI).
  const start = async (env: Record<string, string>): Promise<string> => {
    child = spawn(process.execPath, [serverScript], {
      env: {
        ...process.env,
        ...env,
        DATA_DIR: dataDir,
        PORT: '0',
        SMTP_PORT: '0',
        LOG_LEVEL: 'info',
        ADMIN_PASSWORD: 'admin-password',
        RATE_LIMIT_PER_MINUTE: '1000000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const started = child;
    return new Promise<string>((resolve, reject) => {
      started.stdout?.on('data', (chunk: Buffer) => {
        const address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(chunk.toString());
        if (address?.[1]) resolve(address[1]);
      });
      started.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
  };

  it('keeps every create answered 2xx before the kill', async () => {
    const env: Record<string, string> = {};
    if (database === 'postgres') {
      const created = await createPostgresDatabase();
      env.DATABASE_URL = created.url;
      dropDatabase = created.drop;
    }
    const base = await start(env);
    // The credentials are written once every listener is up, just after the listening line.
    while (!fs.existsSync(path.join(dataDir, 'bootstrap.json'))) await new Promise((r) => setTimeout(r, 50));
    const bootstrap = JSON.parse(
      fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'),
    ) as BootstrapInfo;
    const headers = { 'x-api-key': bootstrap.apiKey, 'x-project-id': bootstrap.projectId };

    const answered: string[] = [];
    let killed = false;
    const client = async (worker: number) => {
      for (let index = 0; !killed; index++) {
        const form = new FormData();
        form.append(
          'testData',
          JSON.stringify({
            name: `w${worker} ${index}`,
            steps: [{ name: 'open', action: { name: 'goto', url: 'https://example.com/' } }],
          }),
        );
        try {
          const response = await fetch(`${base}/v1/tests`, { method: 'POST', headers, body: form });
          if (response.ok) answered.push(((await response.json()) as { data: { id: string } }).data.id);
          else throw new Error(`create answered ${response.status}`);
        } catch (error) {
          // After the kill, requests in flight fail on the connection: their outcome is unknown.
          if (!killed) throw error;
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, worker) => client(worker));
    const deadline = Date.now() + 30_000;
    while (answered.length < 60 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const before = [...answered];
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child?.kill('SIGKILL');
    killed = true;
    await exited;
    await Promise.all(clients);
    expect(before.length).toBeGreaterThanOrEqual(20);

    const restarted = await start(env);
    const list = await fetch(`${restarted}/v1/tests?limit=100000`, { headers });
    expect(list.status).toBe(200);
    const present = new Set(
      ((await list.json()) as { children: Array<{ id: string }> }).children.map((c) => c.id),
    );
    expect(before.filter((id) => !present.has(id))).toEqual([]);
    for (const id of before.slice(0, 10)) {
      const detail = await fetch(`${restarted}/v1/tests/${id}`, { headers });
      expect(detail.status).toBe(200);
      expect(((await detail.json()) as { test: { stepsCount: number } }).test.stepsCount).toBe(1);
    }
  }, 240_000);
});
