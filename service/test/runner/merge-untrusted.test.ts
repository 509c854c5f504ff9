import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { mergeBlobReports, stopMergeServer } from '../../src/runner/merge.ts';
import { removeTempDirs, tempDir } from './fixtures.ts';

/**
 * The blob reports of an orchestrated run's batches are written by the run, under the run's uid:
 * code that escaped a tenant's browser can put anything there. The service merges them with
 * Playwright's `merge-reports` under its own uid, so the merge must not write outside its
 * folders whatever the zip says (a "zip slip": an entry named `../../x`).
 */

/** A zip whose one entry is named `name`; yazl refuses `..`, so a same-length name is patched in. */
async function zipWithEntry(name: string, content: string): Promise<Buffer> {
  const placeholder = name.replace(/[^/]/g, 'a');
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(content), placeholder);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  let at = bytes.indexOf(placeholder);
  expect(at).toBeGreaterThan(-1);
  while (at !== -1) {
    bytes.write(name, at, 'latin1');
    at = bytes.indexOf(placeholder, at + 1);
  }
  return bytes;
}

describe('merging blob reports a run wrote', () => {
  afterAll(async () => {
    stopMergeServer();
    await removeTempDirs();
  });

  it('refuses an entry that climbs out of the folder, and writes nothing outside it', async () => {
    const root = await tempDir('merge-untrusted');
    const blobDir = path.join(root, 'a', 'b', 'blobs');
    await fs.mkdir(blobDir, { recursive: true });
    const climbing = '../../../escaped.jsonl';
    await fs.writeFile(
      path.join(blobDir, 'report-1.zip'),
      await zipWithEntry(climbing, '{"method":"onBlobReportMetadata","params":{"version":2}}\n'),
    );
    await expect(mergeBlobReports(blobDir, path.join(root, 'out'))).rejects.toThrow(/merge-reports failed/);
    await expect(fs.stat(path.join(blobDir, climbing))).rejects.toThrow(/ENOENT/);
    expect(await fs.readdir(root)).toEqual(expect.not.arrayContaining(['escaped.jsonl']));
  });
});
