import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../src/adapters/blobs/file.ts';
import { openDatabase } from '../../src/adapters/db/index.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { isRefusedAddress } from '../../src/modules/webhooks/url-guard.ts';
import { createTestApp, databaseKinds, type TestApp } from '../helper.ts';

/** One raw HTTP/1.1 request (any request target, e.g. the absolute form) → status code. */
function rawStatus(port: number, target: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const lines = [`GET ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(Number(text.slice(9, 12))));
    socket.on('error', reject);
  });
}

/** Size, count and routing limits, each driven by the request that would exceed it. */
describe.each(databaseKinds)('limits and routing (%s)', (database) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('counts /%761/tests and absolute-form targets against the per-key limit', async () => {
    const t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '6' } });
    apps.push(t);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const headers = { 'x-api-key': t.bootstrap.apiKey, 'x-project-id': t.bootstrap.projectId };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await rawStatus(port, '/%761/tests', headers));
    for (let i = 0; i < 4; i++)
      statuses.push(await rawStatus(port, `http://127.0.0.1:${port}/v1/tests`, headers));
    // The disguised targets reached the real route (200) until the limit of 6 was spent.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('serves artifacts of keys with % and refuses a signed traversal key with 4xx', async () => {
    const t = await createTestApp({ database });
    apps.push(t);
    const blobs = t.ctx.blobs as FileBlobStore;
    expect(blobs).toBeInstanceOf(FileBlobStore);
    for (const key of [
      'runs/r1/tests/50% off/a.txt',
      'runs/r1/tests/a%41b/a.txt',
      'runs/r1/x%2F..%2Fy.txt',
    ]) {
      await blobs.put(key, Buffer.from(`content of ${key}`));
      const url = await blobs.presign(key, 60);
      const response = await t.app.inject({ method: 'GET', url: url.slice(t.config.publicUrl.length) });
      expect(response.statusCode, key).toBe(200);
      expect(response.body, key).toBe(`content of ${key}`);
    }
    // A key signed by the service's own key that climbs out of the blob folder: 400, not 500.
    const sign = (blobs as unknown as { sign(key: string, expires: number): string }).sign.bind(blobs);
    const expires = Math.floor(Date.now() / 1000) + 60;
    const traversal = 'runs/../../stepdeck.sqlite';
    // Sent raw: an HTTP client (and inject) would resolve the dot segments before sending.
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const query = `?expires=${expires}&signature=${sign(traversal, expires)}`;
    expect(await rawStatus(port, `/blobs/runs/%2E%2E/%2E%2E/stepdeck.sqlite${query}`, {})).toBe(400);
    expect(await rawStatus(port, `/blobs/runs/../../stepdeck.sqlite${query}`, {})).toBe(400);
  });

  it('sends nosniff, a CSP with frame-ancestors and the other security headers on every response', async () => {
    const t = await createTestApp({ database });
    apps.push(t);
    const responses = [
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await t.api({ method: 'GET', url: '/v1/tests' }),
      await t.api({ method: 'GET', url: '/v1/email-inboxes/nobody/messages' }),
      await t.app.inject({ method: 'GET', url: '/v1/tests' }),
      await t.app.inject({ method: 'GET', url: '/nothing-here' }),
      await t.app.inject({ method: 'GET', url: '/blobs/x?expires=1&signature=x' }),
    ];
    for (const response of responses) {
      const where = `${response.statusCode} ${response.raw.req.url}`;
      expect(response.headers['x-content-type-options'], where).toBe('nosniff');
      const csp = String(response.headers['content-security-policy']);
      expect(csp, where).toContain("frame-ancestors 'self'");
      expect(csp, where).toContain("default-src 'self'");
      expect(csp, where).toContain("script-src 'self'");
      expect(csp, where).not.toContain("'unsafe-eval'");
      expect(response.headers['x-frame-options'], where).toBe('SAMEORIGIN');
      expect(response.headers['referrer-policy'], where).toBe('no-referrer');
    }
  });
});

describe('url guard', () => {
  it('refuses IPv4-compatible IPv6 addresses like the mapped ones', () => {
    for (const address of [
      '::7f00:1',
      '::127.0.0.1',
      '::a00:1',
      '::a9fe:a9fe',
      '::ffff:127.0.0.1',
      '::1',
      '::',
    ])
      expect(isRefusedAddress(address), address).toBe(true);
    expect(isRefusedAddress('2606:4700::1111')).toBe(false);
    // The allow-list still lets a listed IPv4 target through in either form.
    expect(isRefusedAddress('::7f00:1', ['127.0.0.1/32'])).toBe(false);
  });
});

describe('request log', () => {
  it('logs signed artifact URLs without their query (no signature)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-log-query-'));
    const lines: string[] = [];
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: 'password-logs',
    });
    const handle = await openDatabase({ dataDir });
    const built = await buildApp({
      config,
      database: handle,
      background: false,
      logStream: { write: (line: string) => void lines.push(line) },
    });
    try {
      await built.app.ready();
      const blobs = built.ctx.blobs as FileBlobStore;
      await blobs.put('runs/r/a.txt', Buffer.from('a'));
      const url = await blobs.presign('runs/r/a.txt', 60);
      const signature = new URL(url).searchParams.get('signature') as string;
      const response = await built.app.inject({ method: 'GET', url: url.slice(config.publicUrl.length) });
      expect(response.statusCode).toBe(200);
      const log = lines.join('\n');
      expect(log).toContain('/blobs/runs/r/a.txt');
      expect(log).not.toContain(signature);
      expect(log).not.toContain('expires=');
    } finally {
      await built.app.close();
      await handle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
