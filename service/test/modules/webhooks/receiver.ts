import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { RunFinished } from '../../../src/context.ts';

export interface TestCertificate {
  cert: string;
  key: string;
}

/** A throwaway self-signed certificate for 127.0.0.1 and hooks.example.test, made with openssl. */
export function makeCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-webhook-cert-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=hooks.example.test',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:hooks.example.test',
      ],
      { stdio: 'ignore' },
    );
    return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  /** performance.now() when the request body had fully arrived. */
  at: number;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The client's port: equal for requests that came over one (kept-alive) connection. */
  remotePort: number | undefined;
}

/** What the receiver answers: a status (with optional headers), or `hang` (never answers). */
export type Reply = { status: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  port: number;
  url(pathname?: string): string;
  requests: ReceivedRequest[];
  /** Answer for the nth request (0-based); the last entry repeats. */
  replies: Reply[];
  /** Resolves once `count` requests arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTPS receiver on loopback. */
export async function startReceiver(
  certificate: TestCertificate,
  replies: Reply[] = [{ status: 200 }],
  options: { keepAliveMs?: number } = {},
) {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = https.createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const index = requests.length;
      requests.push({
        at: performance.now(),
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        rawBody: Buffer.concat(chunks),
        remotePort: request.socket.remotePort,
      });
      for (const waiter of [...waiters]) {
        if (requests.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      const reply = receiver.replies[Math.min(index, receiver.replies.length - 1)] ?? { status: 200 };
      if (reply === 'hang') return;
      response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      response.end('ok');
    });
  });
  server.keepAliveTimeout = options.keepAliveMs ?? 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    port,
    url: (pathname = '/hook') => `https://127.0.0.1:${port}${pathname}`,
    requests,
    replies,
    waitFor(count, timeoutMs = 30_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

/** A finished run as the runs module announces it. */
export function finishedRun(organizationId: string, overrides: Partial<RunFinished> = {}): RunFinished {
  const status = overrides.status ?? 'completed';
  return {
    organizationId,
    runId: crypto.randomUUID(),
    name: 'Nightly checkout',
    status,
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:01:05.250Z',
    durationMs: 65250,
    trigger: { type: 'apiKey', name: 'ci key' },
    project: { id: '11111111-2222-4333-8444-555555555555', name: 'Shop' },
    branch: { id: '66666666-7777-4888-9999-000000000000', name: 'main' },
    target: { type: 'tag', id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee', name: 'smoke' },
    stats:
      status === 'completed'
        ? { passed: 2, failed: 0, skipped: 1, total: 3 }
        : { passed: 1, failed: 1, skipped: 1, total: 3 },
    tests:
      status === 'completed'
        ? [
            { name: 'login', status: 'passed', durationMs: 1200, errorMessage: null, errorLocation: null },
            { name: 'cart', status: 'passed', durationMs: 3400, errorMessage: null, errorLocation: null },
            { name: 'legacy', status: 'skipped', durationMs: 0, errorMessage: null, errorLocation: null },
          ]
        : [
            { name: 'login', status: 'passed', durationMs: 1200, errorMessage: null, errorLocation: null },
            {
              name: 'cart',
              status: 'failed',
              durationMs: 3400,
              errorMessage: 'expected "3 items" to be visible',
              errorLocation: 'step 2: assert text',
            },
            { name: 'legacy', status: 'skipped', durationMs: 0, errorMessage: null, errorLocation: null },
          ],
    ...overrides,
  };
}

/** Starts delivering in an app built without background work; resolves to its stop function. */
export async function startDelivering(app: FastifyInstance): Promise<() => Promise<void>> {
  await app.webhooks.start();
  return () => app.webhooks.stop();
}
