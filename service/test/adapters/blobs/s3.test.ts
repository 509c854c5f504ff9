import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore, type S3Options } from '../../../src/adapters/blobs/s3.ts';
import { type FakeS3, startFakeS3 } from './s3rver.ts';

/** The S3 backend against a real S3-protocol server (s3rver) on loopback. */
describe('S3 blob store against s3rver', () => {
  let s3: FakeS3;
  let options: S3Options;
  let store: S3BlobStore;

  beforeAll(async () => {
    s3 = await startFakeS3();
    options = {
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      prefix: 'stepdeck',
    };
    store = new S3BlobStore(options);
  });

  afterAll(async () => {
    store?.client.destroy();
    await s3?.close();
  });

  const streamText = async (stream: Readable | undefined) => {
    if (!stream) throw new Error('no stream');
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  };

  it('puts a Buffer and reads it back with get, stream, exists and size', async () => {
    const bytes = Buffer.from('hello from s3rver\n');
    await store.put('runs/r1/test-run.log', bytes, 'text/plain; charset=utf-8');
    expect(await store.get('runs/r1/test-run.log')).toEqual(bytes);
    expect(await streamText(await store.stream('runs/r1/test-run.log'))).toEqual(bytes);
    expect(await store.exists('runs/r1/test-run.log')).toBe(true);
    expect(await store.size('runs/r1/test-run.log')).toBe(bytes.length);
    expect(await store.size('runs/r1/missing.log')).toBeUndefined();

    expect(await store.exists('runs/r1/missing.log')).toBe(false);
    expect(await store.get('runs/r1/missing.log')).toBeUndefined();
    expect(await store.stream('runs/r1/missing.log')).toBeUndefined();
    // A "directory" is not an object.
    expect(await store.exists('runs/r1')).toBe(false);
  });

  it('stores under the configured key prefix, invisible to a store without it', async () => {
    await store.put('prefixed/a.txt', Buffer.from('a'));
    const bare = new S3BlobStore({ ...options, prefix: undefined });
    try {
      expect(await bare.get('stepdeck/prefixed/a.txt')).toEqual(Buffer.from('a'));
      expect(await bare.exists('prefixed/a.txt')).toBe(false);
      expect(await bare.list('prefixed')).toEqual([]);
      expect(await store.list('prefixed')).toEqual(['prefixed/a.txt']);
    } finally {
      bare.client.destroy();
    }
  });

  it('puts streams of unknown length, small and larger than one upload part', async () => {
    const small = Buffer.from('a small generated stream');
    await store.put(
      'streams/small.txt',
      Readable.from(
        (function* () {
          yield small.subarray(0, 5);
          yield small.subarray(5);
        })(),
      ),
    );
    expect(await store.get('streams/small.txt')).toEqual(small);

    // A file stream of 12 MiB + 1 byte: more than one multipart part (and than one read chunk).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3-stream-'));
    const file = path.join(dir, 'video.webm');
    const big = randomBytes(12 * 1024 * 1024 + 1);
    fs.writeFileSync(file, big);
    const commands: string[] = [];
    store.client.middlewareStack.add(
      (next, context) => (args) => {
        commands.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
    try {
      await store.put('streams/video.webm', fs.createReadStream(file));
    } finally {
      store.client.middlewareStack.remove('recordCommands');
    }
    // 8 MiB parts: a multipart upload of two parts, never the whole file in one buffer.
    expect(commands).toEqual([
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'CompleteMultipartUploadCommand',
    ]);
    const video = await fetch(await store.presign('streams/video.webm', 60));
    expect(video.headers.get('content-type')).toBe('video/webm');
    expect(Number(video.headers.get('content-length'))).toBe(big.length);
    await video.body?.cancel();
    const back = await store.get('streams/video.webm');
    expect(back?.length).toBe(big.length);
    expect(back?.equals(big)).toBe(true);
    expect((await streamText(await store.stream('streams/video.webm'))).equals(big)).toBe(true);

    // An empty stream is an empty object.
    await store.put('streams/empty.txt', Readable.from([]));
    expect(await store.get('streams/empty.txt')).toEqual(Buffer.alloc(0));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists a prefix as a folder, sorted, across several pages', async () => {
    const paged = new S3BlobStore({ ...options, pageSize: 3 });
    try {
      const keys = Array.from({ length: 10 }, (_, index) => `list/run/k${String(index).padStart(2, '0')}`);
      for (const key of [...keys].reverse()) await paged.put(key, Buffer.from(key));
      await paged.put('list/run/nested/deeper.txt', Buffer.from('x'));
      // Same string prefix, other folders: not listed.
      await paged.put('list/runner/other.txt', Buffer.from('x'));
      await paged.put('list/run.txt', Buffer.from('x'));

      const expected = [...keys, 'list/run/nested/deeper.txt'];
      expect(await paged.list('list/run')).toEqual(expected);
      expect(await paged.list('list/run/')).toEqual(expected);
      expect(await paged.list('list/run/nested')).toEqual(['list/run/nested/deeper.txt']);
      expect(await paged.list('list/nothing')).toEqual([]);
      // s3rver's own paging walks its directories out of S3's byte order when an object sits
      // next to a folder of the same stem (`run.txt` / `run/`): that listing uses one page.
      expect(await store.list('list')).toEqual(['list/run.txt', ...expected, 'list/runner/other.txt']);
    } finally {
      paged.client.destroy();
    }
  });

  it('deletes every key under a prefix and nothing else', async () => {
    await store.put('del/run/a.txt', Buffer.from('a'));
    await store.put('del/run/tests/t1/trace.zip', Buffer.from('t'));
    await store.put('del/runner/keep.txt', Buffer.from('k'));
    await store.put('del/run.txt', Buffer.from('k'));
    await store.put('del/single/file.png', Buffer.from('p'));
    await store.put('del/single/file.png.bak', Buffer.from('b'));

    await store.delete('del/run');
    expect(await store.list('del')).toEqual([
      'del/run.txt',
      'del/runner/keep.txt',
      'del/single/file.png',
      'del/single/file.png.bak',
    ]);

    // A full key deletes that one object, like the file backend.
    await store.delete('del/single/file.png');
    expect(await store.exists('del/single/file.png')).toBe(false);
    expect(await store.exists('del/single/file.png.bak')).toBe(true);

    // Deleting what is not there is not an error.
    await store.delete('del/none');
  });

  it('lists and deletes more than 1000 keys (S3 pages and batches of 1000)', async () => {
    const keys = Array.from({ length: 1003 }, (_, index) => `many/k${String(index).padStart(4, '0')}`);
    const queue = [...keys];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let key = queue.shift(); key; key = queue.shift()) await store.put(key, Buffer.from(key));
      }),
    );
    await store.put('many-others/keep.txt', Buffer.from('keep'));
    expect(await store.list('many')).toEqual(keys);
    await store.delete('many');
    expect(await store.list('many')).toEqual([]);
    expect(await store.list('many-others')).toEqual(['many-others/keep.txt']);
  });

  it('presigns GET URLs that download with plain fetch, with content type and file name', async () => {
    const log = Buffer.from('line 1\nline 2\n');
    await store.put('runs/r2/test-run.log', log);
    await store.put('runs/r2/tests/ui fail/trace.zip', Buffer.from('PK-trace'), 'application/zip');
    await store.put('runs/r2/bundle.tgz', Buffer.from('tgz'), 'application/gzip');

    const logUrl = await store.presign('runs/r2/test-run.log', 3600, 'test-run.log');
    expect(new URL(logUrl).origin).toBe(s3.endpoint);
    const response = await fetch(logUrl);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(log);
    // No content type given: derived from the file name, not S3's binary/octet-stream.
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="test-run.log"');

    // A key with a space, and an explicit content type.
    const trace = await fetch(await store.presign('runs/r2/tests/ui fail/trace.zip', 60, 'trace.zip'));
    expect(trace.status).toBe(200);
    expect(await trace.text()).toBe('PK-trace');
    expect(trace.headers.get('content-type')).toBe('application/zip');

    const bundle = await fetch(await store.presign('runs/r2/bundle.tgz', 60));
    expect(bundle.headers.get('content-type')).toBe('application/gzip');
    expect(await bundle.text()).toBe('tgz');

    // A presigned URL of a missing key answers 404, not the bytes of anything else.
    expect((await fetch(await store.presign('runs/r2/missing.log', 60))).status).toBe(404);
  });

  // s3rver 3.7.1 does not check SigV4 signatures at all (its authentication middleware says
  // "Signature version 4 calculation is unimplemented"), so a tampered URL cannot be refused by
  // it. Instead the presigned URL is verified here the way S3 does (AWS SigV4 query signing,
  // recomputed independently of the SDK): the real URL verifies, any tampering does not.
  it('presigns URLs whose SigV4 signature verifies, and no tampered variant does', async () => {
    await store.put('runs/r3/tests/ui fail/trace.zip', Buffer.from('PK'), 'application/zip');
    const url = new URL(await store.presign('runs/r3/tests/ui fail/trace.zip', 3600, 'trace.zip'));
    expect((await fetch(url)).status).toBe(200);
    expect(verifySigV4(url, s3.secretAccessKey)).toBe(true);
    expect(verifySigV4(url, 'another-secret')).toBe(false);

    const signature = url.searchParams.get('X-Amz-Signature') ?? '';
    const tampered = new URL(url);
    tampered.searchParams.set(
      'X-Amz-Signature',
      `${signature.startsWith('a') ? 'b' : 'a'}${signature.slice(1)}`,
    );
    expect(verifySigV4(tampered, s3.secretAccessKey)).toBe(false);

    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace('trace.zip', 'screenshot.png');
    expect(verifySigV4(otherKey, s3.secretAccessKey)).toBe(false);

    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '7200');
    expect(verifySigV4(longer, s3.secretAccessKey)).toBe(false);

    const renamed = new URL(url);
    renamed.searchParams.set('response-content-disposition', 'attachment; filename="x.html"');
    expect(verifySigV4(renamed, s3.secretAccessKey)).toBe(false);
  });

  it('refuses an expired presigned URL', async () => {
    await store.put('runs/r4/test-run.log', Buffer.from('soon gone'));
    const url = await store.presign('runs/r4/test-run.log', 1);
    // X-Amz-Date has second resolution: 2.5 s is surely past the expiry.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Request has expired');
  });

  it('refuses unsafe keys before calling S3', async () => {
    await expect(store.put('runs/../x', Buffer.from('x'))).rejects.toThrow(/Unsafe blob key/);
    await expect(store.get('/abs')).rejects.toThrow(/Unsafe blob key/);
  });
});

const rfc3986 = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** AWS Signature V4 query-string verification of a presigned S3 GET (host the only signed header). */
function verifySigV4(url: URL, secretAccessKey: string): boolean {
  const query = url.searchParams;
  const [accessKey, date, region, service, terminator] = (query.get('X-Amz-Credential') ?? '').split('/');
  if (!accessKey || !date || !region || service !== 's3' || terminator !== 'aws4_request') return false;
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || query.get('X-Amz-SignedHeaders') !== 'host')
    return false;
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    url.pathname,
    canonicalQuery,
    `host:${url.host}`,
    '',
    'host',
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    query.get('X-Amz-Date') ?? '',
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), 's3'), 'aws4_request');
  return createHmac('sha256', signingKey).update(stringToSign).digest('hex') === query.get('X-Amz-Signature');
}
