import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressAboveBytes, registerCompression } from '../../src/plugins/compression.ts';
import { registerConsoleStatic } from '../../src/plugins/console-static.ts';
import { registerErrorHandling } from '../../src/plugins/errors.ts';
import { createTest, createTestApp, type TestApp } from '../helper.ts';

interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (still encoded). */
  raw: Buffer;
  /** The body after undoing its Content-Encoding. */
  body: Buffer;
}

/** A plain HTTP/1.1 GET on a real socket with exactly the headers given (no implicit Accept-Encoding). */
function get(url: string, headers: Record<string, string>): Promise<Received> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = response.headers['content-encoding'];
          const body =
            encoding === 'br'
              ? zlib.brotliDecompressSync(raw)
              : encoding === 'gzip'
                ? zlib.gunzipSync(raw)
                : raw;
          resolve({ status: response.statusCode ?? 0, headers: response.headers, raw, body });
        });
      })
      .on('error', reject);
  });
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe('compression of API responses and artifacts, on a real port', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t.app);
  });
  afterAll(async () => t?.close());

  it('sends a large JSON answer as brotli or gzip, whichever the client accepts, and plain to a client that accepts neither', async () => {
    for (let index = 0; index < 12; index += 1)
      await createTest(t, { name: `compressed listing ${index} ${'x'.repeat(30)}` });
    const url = `${base}/v1/tests?limit=100`;
    const plain = await get(url, t.headers);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.raw.length).toBeGreaterThan(compressAboveBytes);

    const brotli = await get(url, { ...t.headers, 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(brotli.raw.length).toBeLessThan(plain.raw.length / 3);
    expect(JSON.parse(brotli.body.toString())).toEqual(JSON.parse(plain.raw.toString()));

    const gzip = await get(url, { ...t.headers, 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gzip.body.toString())).toEqual(JSON.parse(plain.raw.toString()));

    const refused = await get(url, { ...t.headers, 'accept-encoding': 'identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.raw.length).toBe(plain.raw.length);
  });

  it('leaves an answer below the threshold uncompressed', async () => {
    const small = await get(`${base}/healthz`, { 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.raw.length).toBeLessThan(compressAboveBytes);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.raw.toString())).toEqual({ status: 'ok' });
  });

  it('compresses the API document', async () => {
    const document = await get(`${base}/openapi.json`, { 'accept-encoding': 'br' });
    expect(document.headers['content-encoding']).toBe('br');
    expect(JSON.parse(document.body.toString()).openapi).toMatch(/^3\./);
  });

  it('never compresses a zip, a png or a webm again, and compresses an HTML report', async () => {
    const random = (size: number) =>
      Buffer.from(Array.from({ length: size }, (_, index) => (index * 7919) % 251));
    const html = Buffer.from(`<!doctype html><title>report</title>${'<p>passed</p>'.repeat(500)}`);
    const files: Record<string, Buffer> = {
      'runs/r/trace.zip': random(8000),
      'runs/r/shot.png': random(8000),
      'runs/r/video.webm': random(8000),
      'runs/r/report/index.html': html,
    };
    const urls: Record<string, string> = {};
    for (const [key, content] of Object.entries(files)) {
      await t.ctx.blobs.put(key, content);
      // Presigned with the service's public URL; the same path on this listener.
      const signed = new URL(await t.ctx.blobs.presign(key, 600));
      urls[key] = `${base}${signed.pathname}${signed.search}`;
    }
    for (const key of ['runs/r/trace.zip', 'runs/r/shot.png', 'runs/r/video.webm']) {
      const response = await get(urls[key] as string, { 'accept-encoding': 'gzip, deflate, br' });
      expect(response.status, key).toBe(200);
      expect(response.headers['content-encoding'], key).toBeUndefined();
      expect(response.raw.equals(files[key] as Buffer), key).toBe(true);
    }
    const report = await get(urls['runs/r/report/index.html'] as string, { 'accept-encoding': 'gzip, br' });
    expect(report.headers['content-type']).toMatch(/text\/html/);
    expect(report.headers['content-encoding']).toBe('br');
    expect(report.body.equals(html)).toBe(true);
  });
});

describe("the console's assets, precompressed at build, on a real port", () => {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-compressed-dist-'));
  const script = Buffer.from(`export const words = ${JSON.stringify('console words '.repeat(400))};\n`);
  const tiny = Buffer.from('export const x = 1;\n');
  // Made differently from what the service would make on the fly (other levels), so that the
  // lengths below show the build's files were sent.
  const brotli = zlib.brotliCompressSync(script, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } });
  const gzip = zlib.gzipSync(script, { level: 1 });
  const app = Fastify({ logger: false });
  let base: string;
  beforeAll(async () => {
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), script);
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.br'), brotli);
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.gz'), gzip);
    fs.writeFileSync(path.join(dist, 'assets', 'tiny-abc123.js'), tiny);
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(app);
    await registerCompression(app);
    // A stream of server-sent events is never held back by a compressor.
    app.get('/events', async (_request, reply) =>
      reply.type('text/event-stream').send(`data: ${'event '.repeat(400)}\n\n`),
    );
    await registerConsoleStatic(app, { distDir: dist });
    base = await listen(app);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it("sends the build's .br to a browser that accepts brotli, its .gz to one that accepts gzip only, and the file itself otherwise", async () => {
    const url = `${base}/console/assets/index-abc123.js`;
    const asBrotli = await get(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(asBrotli.status).toBe(200);
    expect(asBrotli.headers['content-encoding']).toBe('br');
    expect(asBrotli.headers['content-type']).toMatch(/javascript/);
    expect(asBrotli.headers.vary).toMatch(/accept-encoding/i);
    expect(asBrotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asBrotli.raw.equals(brotli)).toBe(true);
    expect(asBrotli.body.equals(script)).toBe(true);

    const asGzip = await get(url, { 'accept-encoding': 'gzip' });
    expect(asGzip.headers['content-encoding']).toBe('gzip');
    expect(asGzip.raw.equals(gzip)).toBe(true);

    const plain = await get(url, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.raw.equals(script)).toBe(true);
  });

  it('sends an asset too small to be precompressed as it is', async () => {
    const response = await get(`${base}/console/assets/tiny-abc123.js`, { 'accept-encoding': 'gzip, br' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.raw.equals(tiny)).toBe(true);
  });

  it('never compresses server-sent events', async () => {
    const response = await get(`${base}/events`, { 'accept-encoding': 'gzip, br' });
    expect(response.raw.length).toBeGreaterThan(compressAboveBytes);
    expect(response.headers['content-encoding']).toBeUndefined();
  });
});
