import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = path.resolve(consoleDir, '..');

export interface Bootstrap {
  organizationId: string;
  projectId: string;
  branchId: string;
  apiKey: string;
  adminEmail: string;
  adminPassword: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Builds the console when its sources changed since the last build. */
export function buildConsole(): void {
  execFileSync(process.execPath, [path.join(consoleDir, 'scripts', 'build-if-stale.mjs')], {
    stdio: 'inherit',
  });
}

export interface RunningService {
  url: string;
  dataDir: string;
  bootstrap: Bootstrap;
  stop(): Promise<void>;
}

/** The real service (`node service/src/server.ts`) on a free port with a temporary DATA_DIR. */
export async function startService(extraEnv: Record<string, string> = {}): Promise<RunningService> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-console-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [path.join(repoDir, 'service', 'src', 'server.ts')], {
    cwd: repoDir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'console-e2e-password',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
      SMTP_PORT: String(await freePort()),
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1/32',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
    process.stderr.write(chunk);
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    // The credentials are written once every listener is up, just after /healthz answers.
    if (ok && fs.existsSync(path.join(dataDir, 'bootstrap.json'))) break;
    if (Date.now() > deadline) throw new Error(`service did not answer /healthz within 120 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  return {
    url,
    dataDir,
    bootstrap,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A loopback site the runs visit: `/page` has the title the tests assert on. */
export async function startSite(): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const target = new URL(request.url ?? '/', 'http://localhost');
    if (target.pathname === '/page') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<!doctype html><title>Runs page</title><h1 id="title">Hello runs</h1><p>A page for console tests.</p>',
      );
      return;
    }
    // Authoring (issue 14): a form the editor's tests fill, click and check.
    if (target.pathname === '/greet') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<!doctype html><title>Greeter</title><label for="who">Who</label><input id="who"><button id="go" onclick="document.getElementById(\'out\').textContent=\'Hello \'+document.getElementById(\'who\').value">Greet</button><p id="out"></p>',
      );
      return;
    }
    // A sign-in form at fixed places (below the recorder's toolbar) that the live recorder records.
    if (target.pathname === '/login') {
      const at = (top: number, left: number) => `position:absolute;top:${top}px;left:${left}px`;
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>Sign in</title><body style="margin:0"><form action="/welcome">` +
          `<label for="user" style="${at(120, 20)}">User</label><input id="user" name="user" style="${at(120, 120)};width:200px;height:30px">` +
          `<label for="password" style="${at(180, 20)}">Password</label><input id="password" name="password" type="password" style="${at(180, 120)};width:200px;height:30px">` +
          `<button style="${at(240, 120)};width:120px;height:40px">Sign in</button></form>`,
      );
      return;
    }
    if (target.pathname === '/welcome') {
      const user = (target.searchParams.get('user') ?? '').replace(/[^\w ]/g, '');
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>Welcome</title><body style="margin:0"><h1 style="position:absolute;top:300px;left:20px;margin:0">Welcome ${user}</h1>`,
      );
      return;
    }
    // Authoring (issue 14): a file input whose chosen file's name and text the page shows.
    if (target.pathname === '/upload') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<!doctype html><title>Uploader</title><label for="file">File</label><input id="file" type="file"><p id="out"></p><script>document.getElementById("file").onchange=async(e)=>{const f=e.target.files[0];document.getElementById("out").textContent=f.name+": "+(await f.text())}</script>',
      );
      return;
    }
    if (target.pathname === '/cross-site-form') {
      // A page of another origin that posts a form to the service with the user's cookie.
      const action = target.searchParams.get('action') ?? '';
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>Other site</title><form id="f" method="POST" action="${action.replaceAll('"', '')}" enctype="text/plain"><input name="x" value="1"></form><script>document.getElementById('f').submit()</script>`,
      );
      return;
    }
    response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
