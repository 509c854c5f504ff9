import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helper.ts';

const serverFile = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const tempDirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A real `node src/server.ts` process, with its output collected and awaitable. */
function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, [serverFile], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(stdout)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    /** Resolves once stdout matches; fails if the process exits first. */
    waitFor(pattern: RegExp): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiters.push({ pattern, resolve });
        check();
        void exited.then(({ code }) =>
          reject(new Error(`server exited (${code}) first:\n${stdout}\n${stderr}`)),
        );
      });
    },
  };
}

describe('server process', () => {
  it('prints credentials once, serves /healthz, and on SIGTERM finishes the in-flight request and exits 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-server-'));
    tempDirs.push(dataDir);
    const port = await freePort();
    // A free SMTP port too: the inbox listener would otherwise take the fixed default 2525.
    const smtpPort = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SMTP_PORT: String(smtpPort),
    };
    const server = startServer({ ...env, ADMIN_PASSWORD: 'server-password' });
    await server.waitFor(/Server listening at/);
    // The first-start credentials are written once the listeners are up, then printed.
    await server.waitFor(/written to /);

    const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    const { stdout } = server.output();
    expect(stdout).toContain(bootstrap.apiKey);
    expect(stdout).toContain('server-password');
    expect(stdout).toContain('bootstrap.json (deleted when the admin first signs in)');
    expect(bootstrap.baseUrl).toBe(`http://127.0.0.1:${port}`);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    // An in-flight request: a login whose body is only half sent when SIGTERM arrives.
    const body = JSON.stringify({ email: 'admin@localhost', password: 'server-password' });
    const half = Math.floor(body.length / 2);
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/console/v1/session',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, half));
      // Finish the body only once the server has begun shutting down.
      void server.waitFor(/shutting down/).then(() => request.end(body.slice(half)));
    });
    await server.waitFor(/incoming request.*\/console\/v1\/session|\/console\/v1\/session.*incoming request/);
    server.child.kill('SIGTERM');

    const finished = await response;
    expect(finished.status).toBe(200);
    expect(JSON.parse(finished.body).data).toMatchObject({ email: 'admin@localhost', role: 'owner' });
    const { code, signal } = await server.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // The SQLite database was closed cleanly: its write-ahead log was checkpointed away.
    expect(fs.existsSync(path.join(dataDir, 'stepdeck.sqlite'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'stepdeck.sqlite-wal'))).toBe(false);

    // A second start on the same DATA_DIR prints no credentials and keeps the same key working.
    const again = startServer(env);
    await again.waitFor(/Server listening at/);
    expect(again.output().stdout).not.toContain(bootstrap.apiKey);
    expect(again.output().stdout).not.toContain('Keep these');
    const sessions = await fetch(`http://127.0.0.1:${port}/console/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(sessions.status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    // Logs carry neither the key nor the password.
    const logs = again.output().stdout + again.output().stderr;
    expect(logs).not.toContain('server-password');
    expect(logs).not.toContain(bootstrap.apiKey);
  });
});
