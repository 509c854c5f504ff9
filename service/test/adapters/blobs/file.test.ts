import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../../src/adapters/blobs/file.ts';

describe('file blob store', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepdeck-file-blobs-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('leaves nothing behind when a stream fails mid-way: no blob, no part file', async () => {
    const store = new FileBlobStore({ root, signingKey: Buffer.alloc(32), publicUrl: 'http://127.0.0.1' });
    const failing = Readable.from(
      (async function* () {
        yield Buffer.alloc(64 * 1024, 'a');
        throw new Error('the source broke');
      })(),
    );
    await expect(store.put('runs/r1/tests/t/trace.zip', failing)).rejects.toThrow('the source broke');
    expect(fs.readdirSync(path.join(root, 'runs', 'r1', 'tests', 't'))).toEqual([]);
    expect(await store.exists('runs/r1/tests/t/trace.zip')).toBe(false);
    await store.put('runs/r1/tests/t/trace.zip', Buffer.from('whole'));
    expect(String(await store.get('runs/r1/tests/t/trace.zip'))).toBe('whole');
    expect(await store.size('runs/r1/tests/t/trace.zip')).toBe(5);
    expect(await store.size('runs/r1/tests/t')).toBeUndefined();
    expect(await store.size('runs/r1/tests/t/missing.zip')).toBeUndefined();
  });
});
