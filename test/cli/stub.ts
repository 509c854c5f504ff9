import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { root } from '../e2e/harness.ts';

export interface StubRequest {
  method: string;
  url: string;
  body: string;
}

type Handler = (request: StubRequest) => { status: number; body: unknown } | undefined;

/**
 * A stand-in for the service on loopback for the CLI run as a child process (nock cannot reach
 * into another process). Every request is recorded; `handle` answers, 404 otherwise.
 */
export async function startStub(handle: Handler) {
  const requests: StubRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(request);
      const answer = handle(request) ?? { status: 404, body: { message: 'not stubbed' } };
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `node src/cli.ts …` (Node 24 runs the sources as they are), output collected as it comes. */
export function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(root, 'src/cli.ts'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output, exited };
}
