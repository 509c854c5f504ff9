import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../src/adapters/blobs/s3.ts';
import { loadConfig } from '../../../src/config.ts';
import { type FakeS3, startFakeS3 } from '../../adapters/blobs/s3rver.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { apiTest, createTest, type Site, startSite, waitForStatus } from './helpers.ts';

/** Configuration and URL presigning, without a server (the store itself: test/adapters/blobs). */
describe('S3 blob store (offline parts)', () => {
  const store = new S3BlobStore({
    bucket: 'artifacts',
    endpoint: 'http://127.0.0.1:9000',
    region: 'eu-west-1',
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'example-secret-key',
    prefix: 'stepdeck',
  });

  it('is selected by S3_* settings', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/x',
      S3_BUCKET: 'artifacts',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
    });
    expect(config.s3).toMatchObject({ bucket: 'artifacts', endpoint: 'http://127.0.0.1:9000' });
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).s3).toBeUndefined();
  });

  it('presigns a path-style GET valid for the requested time, without leaking the secret key', async () => {
    const url = new URL(await store.presign('runs/abc/test-run.log', 3600, 'test-run.log'));
    expect(url.origin).toBe('http://127.0.0.1:9000');
    expect(url.pathname).toBe('/artifacts/stepdeck/runs/abc/test-run.log');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\//);
    expect(url.searchParams.get('response-content-disposition')).toContain('test-run.log');
    expect(url.toString()).not.toContain('example-secret-key');
  });

  it('refuses unsafe keys', async () => {
    await expect(store.presign('runs/../etc/passwd', 60)).rejects.toThrow(/Unsafe blob key/);
  });
});

/** A real run with S3_* set: artifacts land in the bucket (s3rver) and download by their URLs. */
describe('run artifacts on S3 (s3rver on loopback)', () => {
  let s3: FakeS3;
  let site: Site;
  let t: TestApp;

  beforeAll(async () => {
    s3 = await startFakeS3();
    site = await startSite();
    t = await createTestApp({ background: true, env: { ...s3.env, RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    await s3?.close();
  });

  it("lists a run's artifacts with presigned S3 URLs that download without an API key", async () => {
    expect(t.ctx.blobs).toBeInstanceOf(S3BlobStore);
    const testId = await createTest(t, apiTest('s3 api ok', `${site.url}/status?code=200&s3=1`, 200));
    const triggered = await t.api({ method: 'POST', url: `/v1/tests/${testId}/remote-run` });
    expect(triggered.statusCode).toBe(200);
    const runId = triggered.json().data.runId as string;
    const run = await waitForStatus(t, runId, ['completed', 'failed']);
    expect(run.status).toBe('completed');

    const listed = await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/artifacts` });
    expect(listed.statusCode).toBe(200);
    const artifacts = listed.json().data as Array<{ key: string; type: string; url: string }>;
    const keys = artifacts.map((artifact) => artifact.key);
    expect(keys).toEqual(expect.arrayContaining(['bundle.tgz', 'test-results.json', 'test-run.log']));
    expect(keys[0]).toBe('bundle.tgz');

    // Nothing went to DATA_DIR: the bucket holds the run.
    expect(fs.existsSync(path.join(t.dataDir, 'blobs', 'runs', runId))).toBe(false);
    const bucketKeys = await (t.ctx.blobs as S3BlobStore).list(`runs/${runId}`);
    expect(bucketKeys.map((key) => key.slice(`runs/${runId}/`.length)).sort()).toEqual([...keys].sort());

    for (const artifact of artifacts) {
      const url = new URL(artifact.url);
      expect(url.origin).toBe(s3.endpoint);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
      const response = await fetch(url);
      expect(response.status, artifact.key).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length, artifact.key).toBeGreaterThan(0);
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="${artifact.key.split('/').pop()}"`,
      );
      if (artifact.key === 'bundle.tgz') {
        expect(response.headers.get('content-type')).toBe('application/gzip');
        expect([...body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      }
      if (artifact.key === 'test-results.json') {
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(JSON.stringify(JSON.parse(body.toString('utf8')))).toContain('s3 api ok');
      }
      if (artifact.key === 'test-run.log') {
        expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        expect(artifact.type).toBe('log');
      }
    }
  });
});
