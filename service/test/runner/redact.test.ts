import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import {
  createRedactor,
  redactContent,
  redactDirectory,
  redactZipBuffer,
  secretForms,
} from '../../src/runner/redact.ts';

function zipOf(entries: Array<[string, Buffer | string]>): Promise<Buffer> {
  return new Promise((resolve) => {
    const zip = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    for (const [name, data] of entries) {
      if (name.endsWith('/')) zip.addEmptyDirectory(name);
      else zip.addBuffer(Buffer.from(data), name);
    }
    zip.end();
  });
}

function entriesOf(content: Buffer): Promise<Array<[string, Buffer]>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(content, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const out: Array<[string, Buffer]> = [];
      zip.on('end', () => resolve(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          out.push([entry.fileName, Buffer.alloc(0)]);
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            out.push([entry.fileName, Buffer.concat(chunks)]);
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const SECRET = 'p@ss "word"/&ü';

describe('secret redaction of run outputs', () => {
  const redactor = createRedactor([SECRET, 'abc', '']);

  it('replaces the value and its JSON, URL and HTML encoded forms; short values are left alone', () => {
    const forms = secretForms(SECRET);
    expect(forms).toEqual(
      expect.arrayContaining([
        SECRET,
        'p@ss \\"word\\"/&ü',
        encodeURIComponent(SECRET),
        'p@ss &quot;word&quot;/&amp;ü',
      ]),
    );
    for (const form of forms) expect(redactor.text(`x ${form} y`)).toBe('x *** y');
    expect(redactor.text('abc stays')).toBe('abc stays');
    expect(createRedactor(['abc']).active).toBe(false);
    expect(redactor.buffer(Buffer.from(`a${SECRET}b${SECRET}`)).toString()).toBe('a***b***');
  });

  it('rewrites zips entry by entry, recursively, keeping names and order and leaving media untouched', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(SECRET)]);
    const inner = await zipOf([['0-trace.trace', JSON.stringify({ params: { value: SECRET } })]]);
    const outer = await zipOf([
      ['resources/', ''],
      ['resources/a.json', JSON.stringify({ header: `Bearer ${SECRET}` })],
      ['shot.png', png],
      ['nested.zip', inner],
      ['1-trace.network', `${encodeURIComponent(SECRET)}\n`],
    ]);
    const rewritten = await redactZipBuffer(outer, redactor);
    expect(rewritten).toBeDefined();
    const entries = await entriesOf(rewritten as Buffer);
    expect(entries.map(([name]) => name)).toEqual([
      'resources/',
      'resources/a.json',
      'shot.png',
      'nested.zip',
      '1-trace.network',
    ]);
    const byName = new Map(entries);
    expect(JSON.parse(String(byName.get('resources/a.json')))).toEqual({ header: 'Bearer ***' });
    expect(byName.get('shot.png')?.equals(png)).toBe(true);
    expect(String(byName.get('1-trace.network'))).toBe('***\n');
    const nested = await entriesOf(byName.get('nested.zip') as Buffer);
    expect(JSON.parse(String(nested[0]?.[1]))).toEqual({ params: { value: '***' } });
    // Nothing to redact: the archive is kept byte for byte.
    expect(await redactZipBuffer(await zipOf([['a.txt', 'clean']]), redactor)).toBeUndefined();
  });

  it('redacts every encoding a browser or HTTP client produces', () => {
    const secret = 'Summer2024!(x)Ü';
    const markup = 'a<b&c"d>e1';
    const redact = createRedactor([secret, markup]);
    const encoded: Array<[string, string]> = [
      ['form (URLSearchParams)', new URLSearchParams({ password: secret }).toString()],
      ['form with %20', new URLSearchParams({ p: `${secret} ` }).toString().replaceAll('+', '%20')],
      ['encodeURIComponent', `?p=${encodeURIComponent(secret)}`],
      // A page without a UTF-8 charset submits Latin-1 bytes: Ü as %DC.
      ['Latin-1 percent', `password=${escape(secret)}`],
      ['JSON', JSON.stringify({ password: secret })],
      ['JSON twice', JSON.stringify(JSON.stringify({ password: secret }))],
      ['basic auth', `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`],
      ['base64 offset 0', Buffer.from(`${secret}!`).toString('base64')],
      ['base64 offset 1', Buffer.from(`x${secret}`).toString('base64')],
      ['base64 offset 2', `data:text/plain;base64,${Buffer.from(`xy${secret} tail`).toString('base64')}`],
      ['base64url', Buffer.from(`~~${secret}??`).toString('base64url')],
      [
        'HTML text node',
        `<p>${markup.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</p>`,
      ],
      ['HTML attribute', `<input value="${markup.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}">`],
    ];
    for (const [name, text] of encoded) {
      const out = redact.text(text);
      expect(out, name).toContain('***');
      // Nothing of the secret can be recovered from what is left.
      for (const decoded of [out, decodeURIComponent(out.replace(/%(?![0-9A-F]{2})/g, '')), unescape(out)])
        expect(decoded.includes(secret) || decoded.includes(markup), `${name}: ${out}`).toBe(false);
      const base64 = /[A-Za-z0-9+/_-]{8,}={0,2}/.exec(out.replace(/^Basic |^data:[^,]*,/, ''))?.[0];
      if (base64) {
        const bytes = Buffer.from(
          base64,
          base64.includes('-') || base64.includes('_') ? 'base64url' : 'base64',
        );
        expect(bytes.toString('utf8').includes(secret), `${name}: ${out}`).toBe(false);
      }
      expect(redact.buffer(Buffer.from(text, 'utf8')).toString('utf8'), name).toBe(out);
    }
  });

  it("redacts the HTML report's embedded base64 zip and the page around it", async () => {
    const data = await zipOf([['report.json', JSON.stringify({ title: `Fill "${SECRET}"` })]]);
    const html = `<html><title>${SECRET}</title><template id="playwrightReportBase64">data:application/zip;base64,${data.toString('base64')}</template></html>`;
    const out = (await redactContent('index.html', Buffer.from(html), redactor)).toString();
    expect(out).not.toContain(SECRET);
    expect(out).toContain('<title>***</title>');
    const base64 = out.split('base64,')[1]?.split('</template>')[0] ?? '';
    const entries = await entriesOf(Buffer.from(base64, 'base64'));
    expect(JSON.parse(String(entries[0]?.[1]))).toEqual({ title: 'Fill "***"' });
  });

  it('rewrites a directory in place', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redact-'));
    fs.mkdirSync(path.join(dir, 'a'));
    fs.writeFileSync(path.join(dir, 'a', 'error-context.md'), `value: ${SECRET}`);
    fs.writeFileSync(path.join(dir, 'trace.zip'), await zipOf([['t.trace', SECRET]]));
    fs.writeFileSync(path.join(dir, 'clean.txt'), 'nothing here');
    expect(await redactDirectory(dir, redactor)).toBe(2);
    expect(fs.readFileSync(path.join(dir, 'a', 'error-context.md'), 'utf8')).toBe('value: ***');
    const trace = await entriesOf(fs.readFileSync(path.join(dir, 'trace.zip')));
    expect(String(trace[0]?.[1])).toBe('***');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
