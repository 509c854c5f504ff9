import { describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../src/adapters/blobs/s3.ts';
import { loadConfig } from '../../../src/config.ts';

/** No S3 server is available here: this checks configuration and local URL presigning only. */
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
