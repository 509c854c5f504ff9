import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import type { TestApp } from '../../helper.ts';

/** Entry names and contents of a zip, in order. */
export function unzip(content: Buffer): Promise<Array<{ name: string; data: Buffer }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(content, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const entries: Array<{ name: string; data: Buffer }> = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          entries.push({ name: entry.fileName, data: Buffer.alloc(0) });
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const template = '<template id="playwrightReportBase64">data:application/zip;base64,';

/** Every file reachable from an artifact: tar.gz and zip members, the HTML report's embedded zip. */
export async function expand(name: string, data: Buffer): Promise<Array<{ name: string; data: Buffer }>> {
  const out = [{ name, data }];
  if (name.endsWith('.tar.gz')) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-'));
    fs.writeFileSync(path.join(dir, 'a.tar.gz'), data);
    fs.mkdirSync(path.join(dir, 'x'));
    execFileSync('tar', ['xzf', '../a.tar.gz'], { cwd: path.join(dir, 'x') });
    for (const entry of fs.readdirSync(path.join(dir, 'x'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      out.push(...(await expand(`${name}:${path.relative(dir, file)}`, fs.readFileSync(file))));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  } else if (data.length > 4 && data.readUInt32LE(0) === 0x04034b50) {
    for (const entry of await unzip(data)) out.push(...(await expand(`${name}:${entry.name}`, entry.data)));
  } else if (name.endsWith('.html')) {
    const html = data.toString('utf8');
    const start = html.indexOf(template);
    if (start !== -1) {
      const end = html.indexOf('</template>', start);
      const zip = Buffer.from(html.slice(start + template.length, end), 'base64');
      out.push(...(await expand(`${name}:embedded.zip`, zip)));
    }
  }
  return out;
}

/** Every stored artifact of a run, downloaded through its signed URL and unpacked (see expand). */
export async function allArtifactFiles(
  t: TestApp,
  runId: string,
): Promise<Array<{ name: string; data: Buffer }>> {
  const artifacts = (await t.api({ method: 'GET', url: `/v1/test-runs/${runId}/artifacts` })).json()
    .data as Array<{ key: string; url: string }>;
  const files: Array<{ name: string; data: Buffer }> = [];
  for (const artifact of artifacts) {
    const download = await t.app.inject({
      method: 'GET',
      url: artifact.url.slice(t.config.publicUrl.length),
    });
    if (download.statusCode !== 200) throw new Error(`${artifact.key}: ${download.statusCode}`);
    const name = artifact.key.endsWith('.tgz') ? `${artifact.key.slice(0, -4)}.tar.gz` : artifact.key;
    files.push(...(await expand(name, download.rawPayload)));
  }
  return files;
}
