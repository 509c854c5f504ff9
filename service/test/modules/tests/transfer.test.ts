import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { exportLimits, importConcurrency, importLimits } from '../../../src/modules/tests/transfer.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, multipart } from './helpers.ts';

const defaultImportLimits = { ...importLimits };

/** Builds a ZIP with yazl (entries stored or deflated as yazl decides). */
function makeZip(entries: Array<[string, string | Buffer]>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of entries)
    zip.addBuffer(typeof content === 'string' ? Buffer.from(content) : content, name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** yazl refuses unsafe names, so a same-length placeholder is renamed in the raw bytes. */
function renameEntry(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  let count = 0;
  for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, at + 1)) {
    out.write(to, at);
    count += 1;
  }
  if (count !== 2)
    throw new Error(`expected the name in the local header and the central directory, got ${count}`);
  return out;
}

/** A ZIP of `count` deflated entries of `entryBytes` zero bytes each (a few hundred KiB on disk). */
function zeroBomb(count: number, entryBytes: number): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mib = Buffer.alloc(1024 * 1024);
  for (let index = 0; index < count; index += 1) {
    const source = Readable.from(
      (function* () {
        for (let sent = 0; sent < entryBytes; sent += mib.length)
          yield mib.subarray(0, Math.min(mib.length, entryBytes - sent));
      })(),
    );
    zip.addReadStream(source, `tests/${String(index).padStart(5, '0')}-bomb.json`, { size: entryBytes });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** Rewrites the uncompressed size every central-directory record declares (a lying archive). */
function declareSizes(zip: Buffer, uncompressedSize: number): Buffer {
  const out = Buffer.from(zip);
  let count = 0;
  for (let at = out.indexOf(centralSignature); at !== -1; at = out.indexOf(centralSignature, at + 4)) {
    out.writeUInt32LE(uncompressedSize, at + 24);
    count += 1;
  }
  if (count === 0) throw new Error('no central directory records');
  return out;
}
const centralSignature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

function readZip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe.each(databaseKinds)('export and import on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  let exportedTwo: Buffer;
  let target: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
    const dir = await createTest(t, { name: 'Transfer dir', directory: true, status: 'active' });
    await createTest(t, { name: 'Transfer one', parentTestId: dir.id, steps: [gotoStep('/one')] });
    const exported = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { directoryId: dir.id },
    });
    expect(exported.statusCode).toBe(200);
    exportedTwo = exported.rawPayload;
    const project = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/projects',
        payload: { name: `import-target-${database}` },
      })
    ).json().data as { id: string };
    target = { 'x-project-id': project.id };
  });
  afterAll(async () => t?.close());
  afterEach(() => {
    Object.assign(importLimits, defaultImportLimits);
    exportLimits.maxTests = 10_000;
  });

  const importZip = async (zip: Buffer) => {
    const form = await multipart({}, [{ field: 'file', filename: 'service-tests.zip', content: zip }]);
    return t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: form.payload,
      headers: { ...form.headers, ...target },
    });
  };
  const expectNothingImported = async () => {
    const list = await t.api({ method: 'GET', url: '/v1/tests', headers: target });
    expect(list.json().pagination.total).toBe(0);
    const shared = await t.api({ method: 'GET', url: '/v1/steps/shared', headers: target });
    expect(shared.json().pagination.total).toBe(0);
  };

  it('documents its default caps', () => {
    expect(exportLimits.maxTests).toBe(10_000);
    expect(importLimits).toEqual({
      maxEntries: 25_000,
      maxTotalBytes: 256 * 1024 * 1024,
      maxEntryBytes: 40 * 1024 * 1024,
    });
    expect(importConcurrency.max).toBe(2);
  });

  it('names the download service-test.zip for one test and service-tests.zip for several', async () => {
    const one = await createTest(t, { name: 'Lonely', steps: [gotoStep('/')] });
    const two = await createTest(t, { name: 'Pair', steps: [gotoStep('/')] });
    const single = await t.api({ method: 'POST', url: '/v1/tests/export', payload: { testIds: [one.id] } });
    expect(single.statusCode).toBe(200);
    expect(single.headers['content-disposition']).toBe('attachment; filename="service-test.zip"');
    const entries = await readZip(single.rawPayload);
    expect([...entries.keys()].filter((name) => name.startsWith('tests/'))).toEqual([
      'tests/00001-lonely.json',
    ]);
    const manifest = JSON.parse((entries.get('manifest.json') as Buffer).toString());
    expect(manifest).toMatchObject({
      format: 'stepdeck-tests',
      formatVersion: 1,
      tests: ['tests/00001-lonely.json'],
    });
    const several = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { testIds: [one.id, two.id] },
    });
    expect(several.headers['content-disposition']).toBe('attachment; filename="service-tests.zip"');
    expect(several.headers['content-type']).toBe('application/zip');
    const unknown = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { testIds: [crypto.randomUUID()] },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('refuses an export over the cap with 400', async () => {
    const a = await createTest(t, { name: 'Cap a' });
    const b = await createTest(t, { name: 'Cap b' });
    const c = await createTest(t, { name: 'Cap c' });
    exportLimits.maxTests = 2;
    const over = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { testIds: [a.id, b.id, c.id] },
    });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({
      message: 'Export is limited to 2 tests; 3 selected',
      code: 'EXPORT_TOO_MANY_TESTS',
    });
    const at = await t.api({ method: 'POST', url: '/v1/tests/export', payload: { testIds: [a.id, b.id] } });
    expect(at.statusCode).toBe(200);
  });

  it('refuses archives over the entry-count cap and imports nothing', async () => {
    importLimits.maxEntries = 3; // the export holds manifest, shared steps and two tests
    const response = await importZip(exportedTwo);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('Archive has 4 entries; the limit is 3');
    await expectNothingImported();
  });

  it('refuses archives over the uncompressed-size caps and imports nothing', async () => {
    importLimits.maxTotalBytes = 600;
    const total = await importZip(exportedTwo);
    expect(total.statusCode).toBe(400);
    expect(total.json().message).toContain('too large uncompressed');
    Object.assign(importLimits, defaultImportLimits);
    importLimits.maxEntryBytes = 10;
    const entry = await importZip(exportedTwo);
    expect(entry.statusCode).toBe(400);
    expect(entry.json().message).toContain('too large uncompressed');
    await expectNothingImported();
    Object.assign(importLimits, defaultImportLimits);
    expect((await importZip(exportedTwo)).statusCode).toBe(200);
    const list = await t.api({ method: 'GET', url: '/v1/tests', headers: target });
    expect(list.json().pagination.total).toBe(2);
    await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-delete',
      payload: { testIds: list.json().children.map((child: { id: string }) => child.id) },
      headers: target,
    });
    await expectNothingImported();
  });

  it('refuses the zip bomb (8 x 63 MiB entries in ~500 KiB) while inflating and imports nothing', async () => {
    const bomb = await zeroBomb(8, 63 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const response = await importZip(bomb);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(
      `Archive is too large uncompressed: entry "tests/00000-bomb.json" exceeds the limit of ${40 * 1024 * 1024} bytes`,
    );
    await expectNothingImported();
  }, 60_000);

  it('refuses an archive declaring 1.2 GiB from its central directory, before inflating', async () => {
    const entries: Array<[string, string]> = [];
    for (let index = 0; index < 30; index += 1) entries.push([`tests/${index}.json`, '{}']);
    const declared = declareSizes(await makeZip(entries), 40 * 1024 * 1024); // 30 x 40 MiB = 1.2 GiB
    const response = await importZip(declared);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(
      `Archive is too large uncompressed: the total of its entries exceeds the limit of ${256 * 1024 * 1024} bytes`,
    );
    await expectNothingImported();
  });

  it('counts inflated bytes when the central directory understates them', async () => {
    // Declares 100 bytes per entry; each inflates to 2 MiB. The counted bytes pass the lowered caps.
    const lying = declareSizes(await zeroBomb(3, 2 * 1024 * 1024), 100);
    importLimits.maxEntryBytes = 1024 * 1024;
    const entry = await importZip(lying);
    expect(entry.statusCode).toBe(400);
    expect(entry.json().message).toMatch(/too large uncompressed|too many bytes/);
    await expectNothingImported();
  }, 60_000);

  it('answers 429 with Retry-After when imports are already running at the cap', async () => {
    importConcurrency.max = 0;
    try {
      const busy = await importZip(exportedTwo);
      expect(busy.statusCode).toBe(429);
      expect(busy.headers['retry-after']).toBe('5');
      expect(busy.json().message).toContain('Too many imports in progress');
    } finally {
      importConcurrency.max = 2;
    }
    expect((await importZip(exportedTwo)).statusCode).toBe(200);
    const list = await t.api({ method: 'GET', url: '/v1/tests', headers: target });
    await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-delete',
      payload: { testIds: list.json().children.map((child: { id: string }) => child.id) },
      headers: target,
    });
    await expectNothingImported();
  });

  it('refuses path-traversal, absolute and backslash entry names and imports nothing', async () => {
    const entries = await readZip(exportedTwo);
    for (const [placeholder, unsafe] of [
      ['xx/evil.json', '../evil.json'],
      ['xtests/a.json', '/tests/a.json'],
      ['tests/xy.json', 'tests\\xy.json'],
    ] as const) {
      const zip = await makeZip([...entries, [placeholder, '{}']]);
      const response = await importZip(renameEntry(zip, placeholder, unsafe));
      expect(response.statusCode, unsafe).toBe(400);
      expect(response.json().message).toMatch(/unsafe path|Malformed archive|invalid/i);
      await expectNothingImported();
    }
    const notZip = await importZip(Buffer.from('PK not really a zip'));
    expect(notZip.statusCode).toBe(400);
    const noManifest = await importZip(await makeZip([['tests/a.json', '{}']]));
    expect(noManifest.statusCode).toBe(400);
    expect(noManifest.json().message).toBe('Archive has no manifest.json');
    const wrongVersion = await importZip(await makeZip([['manifest.json', '{"formatVersion":99}']]));
    expect(wrongVersion.statusCode).toBe(400);
    const noFile = await multipart({ other: 'x' });
    const missing = await t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: noFile.payload,
      headers: { ...noFile.headers, ...target },
    });
    expect(missing.statusCode).toBe(400);
    await expectNothingImported();
  });

  it('reads archives through the export schema: a wrong field is an error naming file and field', async () => {
    const manifest = JSON.stringify({ formatVersion: 1, tests: [] });
    const notObject = await importZip(await makeZip([['manifest.json', '[1]']]));
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json().message).toMatch(/^manifest\.json: /);
    await expectNothingImported();

    const response = await importZip(
      await makeZip([
        ['manifest.json', manifest],
        ['tests/ok.json', JSON.stringify({ id: 'a', name: 'imported', parentId: null })],
        ['tests/bad-config.json', JSON.stringify({ id: 'b', name: 'bad', config: 'fast please' })],
        ['tests/bad-tags.json', JSON.stringify({ id: 'c', name: 'tagged', tags: 'smoke' })],
        ['shared-steps.json', JSON.stringify([{ id: 's', name: 'login', action: 'click' }])],
      ]),
    );
    expect(response.statusCode, response.body).toBe(200);
    const { imported, errors } = response.json().data;
    expect(imported.tests).toBe(1);
    expect(imported.sharedSteps).toBe(0);
    const byFile = new Map(errors.map((error: { file: string; error: string }) => [error.file, error.error]));
    expect(byFile.get('tests/bad-config.json')).toMatch(/config/);
    expect(byFile.get('tests/bad-tags.json')).toMatch(/tags/);
    expect(byFile.get('shared-steps.json')).toMatch(/^invalid: .*action/);
    const list = await t.api({ method: 'GET', url: '/v1/tests', headers: target });
    expect(list.json().children.map((test: { name: string }) => test.name)).toEqual(['imported']);
    for (const test of list.json().children)
      await t.api({ method: 'DELETE', url: `/v1/tests/${test.id}`, headers: target });
  });

  it('exports format pw as a Playwright project without secret values', async () => {
    const secretValue = `s3cret-${crypto.randomUUID()}`;
    const created = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/secrets`,
      payload: { name: 'PASSWORD', value: secretValue },
    });
    expect(created.statusCode).toBe(201);
    const dir = await createTest(t, { name: 'Pw dir', directory: true });
    const login = await createTest(t, {
      name: 'Pw login',
      parentTestId: dir.id,
      status: 'active',
      steps: [
        gotoStep('/login'),
        { name: 'password', action: { name: 'fill', selector: '#pw', value: '{{secrets.PASSWORD}}' } },
        { name: 'shared', shared: true, action: { name: 'group' }, children: [gotoStep('/home')] },
      ],
    });
    await createTest(t, { name: 'Pw other', parentTestId: dir.id, steps: [gotoStep('/other')] });
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { directoryId: dir.id, format: 'pw' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe('attachment; filename="service-tests.zip"');
    const entries = await readZip(response.rawPayload);
    expect(entries.has('playwright.config.ts')).toBe(true);
    const specs = [...entries.keys()].filter((name) => name.endsWith('.spec.ts')).sort();
    expect(specs).toHaveLength(2);
    expect(specs.some((name) => name.includes('pw-login'))).toBe(true);
    expect(specs.some((name) => name.includes('pw-other'))).toBe(true);
    const loginSpec = (
      entries.get(specs.find((name) => name.includes('pw-login')) as string) as Buffer
    ).toString();
    expect(loginSpec).toContain('/home');
    expect(loginSpec).toContain(login.id);
    for (const [name, content] of entries) {
      expect(content.toString('utf8').includes(secretValue), name).toBe(false);
      expect(content.toString('latin1').includes(secretValue), name).toBe(false);
    }
    expect(response.rawPayload.includes(Buffer.from(secretValue))).toBe(false);
  });
});
