import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { compileProject, executeProject } from '../../src/runner/index.ts';
import { createRedactor, redactDirectory, secretForms } from '../../src/runner/redact.ts';
import { redactRunOutputs } from '../../src/runner/redact-run.ts';
import { needlesOf, Scanner } from '../../src/runner/redact-transforms.ts';
import { peakGrowth } from '../peak-rss.ts';
import { removeTempDirs, step, tempDir } from './fixtures.ts';

/**
 * The run's outputs are redacted by a streaming pass in a child process, bounded by
 * caps on each file or zip entry and on the total; the service's memory stays flat.
 */

const SECRET = 'p@ss "word"/&ü';
const MiB = 1024 * 1024;

type Entry = [name: string, data: Buffer | string | (() => Readable)];

async function writeZip(file: string, entries: Entry[]): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of entries) {
    if (name.endsWith('/')) zip.addEmptyDirectory(name);
    else if (typeof data === 'function') zip.addReadStream(data(), name);
    else zip.addBuffer(Buffer.from(data), name);
  }
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(file));
}

function zipBuffer(entries: Array<[string, string | Buffer]>): Promise<Buffer> {
  return new Promise((resolve) => {
    const zip = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    for (const [name, data] of entries) zip.addBuffer(Buffer.from(data), name);
    zip.end();
  });
}

/** Every entry of a zip (small ones only), validating sizes and CRCs as yauzl reads them. */
function readZip(source: string | Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const opened = (error: Error | null, zip?: yauzl.ZipFile) => {
      if (error || !zip) return reject(error);
      const out = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          out.set(entry.fileName, Buffer.alloc(0));
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    };
    if (typeof source === 'string') yauzl.open(source, { lazyEntries: true }, opened);
    else yauzl.fromBuffer(source, { lazyEntries: true }, opened);
  });
}

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** A JSON body of about `bytes` with the secret, JSON-escaped, every 1 MiB. */
function bigBody(bytes: number, marker = ''): () => Readable {
  const line = Buffer.from(`{"filler":"${'x'.repeat(200)}"}\n`);
  const withSecret = Buffer.from(`{"token":${JSON.stringify(SECRET)},"marker":"${marker}"}\n`);
  return () =>
    Readable.from(
      (function* () {
        const block = Buffer.concat([
          withSecret,
          ...Array.from({ length: Math.floor(MiB / line.length) }, () => line),
        ]);
        for (let sent = 0; sent < bytes; sent += block.length) yield block.subarray(0, bytes - sent);
      })(),
    );
}

afterAll(removeTempDirs);

describe('streaming redaction', () => {
  it('catches a value in every encoding wherever chunks split it, as the in-memory redactor does', () => {
    const other = 'tokenXYZ';
    const needles = needlesOf([SECRET, other, 'abc']);
    const whole = createRedactor([SECRET, other]);
    for (const form of [...secretForms(SECRET), other]) {
      const text = Buffer.from(`head ${form} mid ${form}${form} tail`, 'utf8');
      const expected = whole.buffer(text).toString('utf8');
      expect(expected).not.toContain(form);
      for (let size = 1; size <= text.length; size += size < 8 ? 1 : 5) {
        const scanner = new Scanner(needles);
        const out: Buffer[] = [];
        for (let at = 0; at < text.length; at += size) out.push(scanner.write(text.subarray(at, at + size)));
        out.push(scanner.end());
        expect(Buffer.concat(out).toString('utf8'), `${form} in chunks of ${size}`).toBe(expected);
      }
    }
    // Overlapping occurrences of two values become one replacement: nothing of either is left.
    const overlapping = new Scanner(needlesOf(['tokenXYZ', 'XYZ123456']));
    const out = Buffer.concat([
      overlapping.write(Buffer.from('a tokenX')),
      overlapping.write(Buffer.from('YZ123456 b')),
      overlapping.end(),
    ]);
    expect(out.toString()).toBe('a *** b');
  });

  it('rewrites traces entry by entry, leaves out entries past the cap with a note, and keeps the rest whole', async () => {
    const dir = await tempDir('redact-stream');
    fs.mkdirSync(path.join(dir, 'test-results', 'a'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'playwright-report', 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'test-results.json'), JSON.stringify({ title: `Fill "${SECRET}"` }));
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(SECRET)]);
    const nested = await zipBuffer([['0-trace.trace', `${JSON.stringify({ params: { value: SECRET } })}\n`]]);
    const trace = path.join(dir, 'test-results', 'a', 'trace.zip');
    await writeZip(trace, [
      ['resources/', ''],
      ['0-trace.trace', `${JSON.stringify({ params: { value: SECRET } })}\n`],
      [
        '0-trace.network',
        `${JSON.stringify({ headers: [{ value: `Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}` }] })}\n`,
      ],
      ['resources/big.json', bigBody(3 * MiB)],
      ['resources/small.json', JSON.stringify({ token: SECRET })],
      ['resources/shot.png', png],
      ['nested.zip', nested],
    ]);
    fs.copyFileSync(trace, path.join(dir, 'playwright-report', 'data', 'abc.zip'));
    const embedded = await zipBuffer([['report.json', JSON.stringify({ title: `Fill "${SECRET}"` })]]);
    fs.writeFileSync(
      path.join(dir, 'playwright-report', 'index.html'),
      `<html><title>${SECRET}</title><template id="playwrightReportBase64">data:application/zip;base64,${embedded.toString('base64')}</template></html>`,
    );
    fs.writeFileSync(path.join(dir, 'test-results', 'a', 'stdout.txt'), Buffer.alloc(2 * MiB, 'y'));
    fs.writeFileSync(path.join(dir, 'test-results', 'a', 'clean.md'), 'nothing here');
    fs.symlinkSync('/etc/passwd', path.join(dir, 'test-results', 'a', 'passwd.txt'));
    const cleanBefore = fs.statSync(path.join(dir, 'test-results', 'a', 'clean.md'));

    const result = await redactRunOutputs({
      paths: [
        path.join(dir, 'test-results.json'),
        path.join(dir, 'test-results'),
        path.join(dir, 'playwright-report'),
      ],
      secrets: [SECRET],
      limits: { entryMaxBytes: MiB, runMaxBytes: 64 * MiB },
      spawnOptions: { cwd: dir },
    });
    expect(result.spawned).toBe(true);
    expect(result.capError).toBeUndefined();
    expect(result.notes).toEqual(
      expect.arrayContaining([
        'left out test-results/a/trace.zip:resources/big.json (3 MiB): larger than ARTIFACT_ENTRY_MAX_BYTES (1 MiB)',
        'left out playwright-report/data/abc.zip:resources/big.json (3 MiB): larger than ARTIFACT_ENTRY_MAX_BYTES (1 MiB)',
        'dropped test-results/a/stdout.txt (2 MiB): larger than ARTIFACT_ENTRY_MAX_BYTES (1 MiB)',
        'removed test-results/a/passwd.txt: a link or special file is not stored',
      ]),
    );
    expect(walk(dir)).toEqual([
      'playwright-report/data/abc.zip',
      'playwright-report/index.html',
      'test-results.json',
      'test-results/a/clean.md',
      'test-results/a/stdout.txt.dropped.txt',
      'test-results/a/trace.zip',
    ]);
    expect(fs.readFileSync(path.join(dir, 'test-results.json'), 'utf8')).toBe('{"title":"Fill \\"***\\""}');
    // A file with nothing to change is not rewritten.
    expect(fs.statSync(path.join(dir, 'test-results', 'a', 'clean.md')).ino).toBe(cleanBefore.ino);
    expect(fs.readFileSync(path.join(dir, 'test-results', 'a', 'stdout.txt.dropped.txt'), 'utf8')).toBe(
      'Stepdeck dropped stdout.txt (2 MiB): larger than ARTIFACT_ENTRY_MAX_BYTES (1 MiB).\n',
    );
    for (const file of [trace, path.join(dir, 'playwright-report', 'data', 'abc.zip')]) {
      const entries = await readZip(file);
      expect([...entries.keys()]).toEqual([
        'resources/',
        '0-trace.trace',
        '0-trace.network',
        'resources/small.json',
        'resources/shot.png',
        'nested.zip',
        'stepdeck-dropped.txt',
      ]);
      expect(JSON.parse(String(entries.get('0-trace.trace')))).toEqual({ params: { value: '***' } });
      expect(String(entries.get('0-trace.network'))).not.toContain(
        Buffer.from(`u:${SECRET}`).toString('base64').slice(4, 16),
      );
      expect(JSON.parse(String(entries.get('resources/small.json')))).toEqual({ token: '***' });
      expect(entries.get('resources/shot.png')?.equals(png)).toBe(true);
      const inner = await readZip(entries.get('nested.zip') as Buffer);
      expect(JSON.parse(String(inner.get('0-trace.trace')))).toEqual({ params: { value: '***' } });
      expect(String(entries.get('stepdeck-dropped.txt'))).toContain(
        'resources/big.json: 3 MiB, larger than ARTIFACT_ENTRY_MAX_BYTES (1 MiB): left out',
      );
    }
    const html = fs.readFileSync(path.join(dir, 'playwright-report', 'index.html'), 'utf8');
    expect(html).toContain('<title>***</title>');
    const base64 = html.split('base64,')[1]?.split('</template>')[0] ?? '';
    expect(JSON.parse(String((await readZip(Buffer.from(base64, 'base64'))).get('report.json')))).toEqual({
      title: 'Fill "***"',
    });
  });

  it("keeps what fits under the run's or the organization's cap, smallest first, and names the cap", async () => {
    const dir = await tempDir('redact-caps');
    fs.mkdirSync(path.join(dir, 'test-results'));
    for (const [name, size] of [
      ['a.txt', 100],
      ['b.txt', 300 * 1024],
      ['c.txt', 600 * 1024],
      ['d.txt', 900 * 1024],
    ] as const)
      fs.writeFileSync(path.join(dir, 'test-results', name), `${SECRET}.${'x'.repeat(size)}`);
    const run = await redactRunOutputs({
      paths: [path.join(dir, 'test-results')],
      secrets: [SECRET],
      limits: { entryMaxBytes: MiB, runMaxBytes: MiB, runStoredBytes: 100 * 1024 },
      spawnOptions: { cwd: dir },
    });
    // 900 KiB may still be kept: a, b and c fit; d does not.
    expect(walk(dir)).toEqual([
      'test-results/a.txt',
      'test-results/b.txt',
      'test-results/c.txt',
      'test-results/d.txt.dropped.txt',
    ]);
    expect(run.capError).toMatch(
      /^the run's artifacts passed RUN_ARTIFACTS_MAX_BYTES \(1 MiB\): kept [\d.]+ KiB, left out 1 file\(s\): test-results\/d\.txt$/,
    );
    for (const name of ['a.txt', 'b.txt', 'c.txt']) {
      const text = fs.readFileSync(path.join(dir, 'test-results', name), 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text.startsWith('***.xxx')).toBe(true);
    }
    expect(fs.readFileSync(path.join(dir, 'test-results', 'd.txt.dropped.txt'), 'utf8')).toContain(
      "the run's artifacts passed RUN_ARTIFACTS_MAX_BYTES (1 MiB)",
    );

    // Without secrets, the organization's cap binding first.
    const org = await tempDir('redact-org');
    fs.writeFileSync(path.join(org, 'one.txt'), Buffer.alloc(600 * 1024, 'x'));
    fs.writeFileSync(path.join(org, 'two.txt'), Buffer.alloc(700 * 1024, 'x'));
    const result = await redactRunOutputs({
      paths: [path.join(org, 'one.txt'), path.join(org, 'two.txt')],
      secrets: [],
      limits: { entryMaxBytes: MiB, runMaxBytes: 512 * MiB, orgMaxBytes: 10 * MiB, orgStoredBytes: 9 * MiB },
    });
    expect(result.capError).toBe(
      "the organization's stored run artifacts passed ORG_ARTIFACTS_MAX_BYTES (10 MiB): kept 600 KiB, left out 1 file(s): two.txt",
    );
    expect(walk(org)).toEqual(['one.txt', 'two.txt.dropped.txt']);
  });

  it('passes the secrets over stdin: never in the child’s argv or environment; a killed child leaves no partial file', async () => {
    const dir = await tempDir('redact-argv');
    const trace = path.join(dir, 'trace.zip');
    await writeZip(trace, [['resources/body.json', bigBody(96 * MiB)]]);
    const original = fs.readFileSync(trace);
    const controller = new AbortController();
    const seen: string[] = [];
    const watcher = setInterval(() => {
      for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
        try {
          const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          // The child of this call (in `dir`), not the one that fills the compile cache (in /).
          if (!command.includes('redact-main.ts') || fs.readlinkSync(`/proc/${pid}/cwd`) !== dir) continue;
          seen.push(command, fs.readFileSync(`/proc/${pid}/environ`, 'utf8'));
          // Caught mid-rewrite: killed (as a cancel does).
          controller.abort();
        } catch {}
      }
    }, 20);
    const outcome = await redactRunOutputs({
      paths: [trace],
      secrets: [SECRET],
      limits: { entryMaxBytes: 128 * MiB, runMaxBytes: 512 * MiB },
      spawnOptions: { cwd: dir },
      signal: controller.signal,
    }).then(
      () => 'finished',
      (error: Error) => error.message,
    );
    clearInterval(watcher);
    expect(seen.length).toBeGreaterThan(0);
    for (const text of seen) for (const form of secretForms(SECRET)) expect(text.includes(form)).toBe(false);
    expect(outcome).toBe('the redaction was cancelled');
    // The original is untouched and no temporary file is left.
    expect(walk(dir)).toEqual(['trace.zip']);
    expect(fs.readFileSync(trace).equals(original)).toBe(true);
  });

  it.runIf(process.getuid?.() === 0)(
    "runs as the run's uid: rewritten files stay the run's, others' files stay out of reach",
    async () => {
      const uid = 2_000_000_123;
      const dir = await tempDir('redact-uid');
      // Node as that uid can run it (the service's may sit under a 0700 home).
      const node = path.join(dir, 'node');
      fs.copyFileSync(process.execPath, node);
      fs.chmodSync(node, 0o755);
      fs.chmodSync(dir, 0o755);
      const runDir = path.join(dir, 'run');
      fs.mkdirSync(path.join(runDir, 'test-results'), { recursive: true });
      await writeZip(path.join(runDir, 'test-results', 'trace.zip'), [
        ['0-trace.trace', JSON.stringify({ value: SECRET })],
      ]);
      fs.writeFileSync(path.join(runDir, 'test-results', 'log.txt'), `said ${SECRET}`);
      for (const target of [
        runDir,
        path.join(runDir, 'test-results'),
        ...walk(runDir).map((name) => path.join(runDir, name)),
      ])
        fs.chownSync(target, uid, uid);
      const spawnOptions = { uid, gid: uid, cwd: runDir, execPath: node };
      const result = await redactRunOutputs({
        paths: [path.join(runDir, 'test-results')],
        secrets: [SECRET],
        spawnOptions,
      });
      expect(result.changed).toBe(2);
      for (const name of ['trace.zip', 'log.txt'])
        expect(fs.statSync(path.join(runDir, 'test-results', name)).uid).toBe(uid);
      expect(fs.readFileSync(path.join(runDir, 'test-results', 'log.txt'), 'utf8')).toBe('said ***');
      expect(
        JSON.parse(
          String((await readZip(path.join(runDir, 'test-results', 'trace.zip'))).get('0-trace.trace')),
        ),
      ).toEqual({
        value: '***',
      });
      // A folder of the service's (0700, root's) cannot be read by the run's uid: the call fails.
      const serviceOwned = path.join(dir, 'service-owned');
      fs.mkdirSync(serviceOwned, { mode: 0o700 });
      fs.writeFileSync(path.join(serviceOwned, 'x.txt'), SECRET);
      await expect(
        redactRunOutputs({ paths: [serviceOwned], secrets: [SECRET], spawnOptions }),
      ).rejects.toThrow(/the redaction process failed \(exit 1\): EACCES/);
    },
  );

  it("keeps this process's memory flat while a 512 MiB trace is redacted (the in-process redaction did not)", async () => {
    const dir = await tempDir('redact-memory');
    const trace = path.join(dir, 'trace.zip');
    await writeZip(trace, [
      ['0-trace.trace', `${JSON.stringify({ value: SECRET })}\n`],
      ...Array.from(
        { length: 4 },
        (_, index): Entry => [`resources/${index}.json`, bigBody(128 * MiB, String(index))],
      ),
    ]);
    const limits = { entryMaxBytes: 256 * MiB, runMaxBytes: 2048 * MiB };
    const child = await peakGrowth(() =>
      redactRunOutputs({ paths: [trace], secrets: [SECRET], limits, spawnOptions: { cwd: dir } }),
    );
    const entries = await new Promise<string[]>((resolve, reject) =>
      yauzl.open(trace, { lazyEntries: false }, (error, zip) => {
        if (error || !zip) return reject(error);
        const names: string[] = [];
        zip.on('entry', (entry: yauzl.Entry) => names.push(`${entry.fileName}:${entry.uncompressedSize}`));
        zip.on('end', () => resolve(names));
      }),
    );
    expect(entries).toHaveLength(5);
    // The control: the former in-process redaction of a quarter of it (one 128 MiB entry).
    const small = path.join(dir, 'small', 'trace.zip');
    fs.mkdirSync(path.dirname(small));
    await writeZip(small, [['resources/0.json', bigBody(128 * MiB)]]);
    const inProcess = await peakGrowth(() => redactDirectory(path.dirname(small), createRedactor([SECRET])));
    console.log(
      `RSS growth: child redaction of 512 MiB ${child.growthMiB.toFixed(1)} MiB; in-process redaction of 128 MiB ${inProcess.growthMiB.toFixed(1)} MiB`,
    );
    expect(inProcess.growthMiB).toBeGreaterThan(64);
    expect(child.growthMiB).toBeLessThan(64);
  }, 180_000);

  it('ends a run past its cap with a runner error naming it; the run folder keeps only whole files', async () => {
    const noise = Buffer.from(randomBytes(MiB).toString('base64'));
    const server = http.createServer((_request, response) => response.end(noise.subarray(0, 700 * 1024)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/noise`;
      const project = await compileProject({
        tests: [
          {
            id: 'eeeeeeee-0000-4000-8000-00000000000e',
            name: 'Noise',
            type: 'api',
            config: { repeatEach: 4, use: { trace: 'on' } },
            vars: {},
            parameters: {},
            files: [],
            steps: [
              step('Get', {
                name: 'request',
                method: 'GET',
                url,
                headers: { 'x-token': '{{secrets.TOKEN}}' },
              }),
              step('OK', { name: 'assertStatus', value: 200 }),
            ],
          },
        ],
        config: null,
        secretNames: ['TOKEN'],
      });
      const dir = await tempDir('redact-run-cap');
      const result = await executeProject({
        dir,
        project,
        env: { STEPDECK_SECRET_TOKEN: SECRET },
        signal: new AbortController().signal,
        artifactLimits: { entryMaxBytes: MiB, runMaxBytes: 2 * MiB },
      });
      expect(result.status).toBe('runnerError');
      expect(result.runnerError).toMatch(
        /^the run's artifacts passed RUN_ARTIFACTS_MAX_BYTES \(2 MiB\): kept [\d.]+ (KiB|MiB), left out \d+ file\(s\): /,
      );
      // The tests ran and passed: their results are kept.
      expect(result.tests.map((test) => test.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
      expect(result.log).toMatch(
        /dropped .+ \([\d.]+ KiB\): the artifacts passed RUN_ARTIFACTS_MAX_BYTES \(2 MiB\)/,
      );
      const outputs = walk(dir).filter((name) => /^(test-results|playwright-report)/.test(name));
      expect(outputs.filter((name) => name.includes('.stepdeck-partial'))).toEqual([]);
      let kept = 0;
      for (const name of outputs) {
        const file = path.join(dir, name);
        kept += fs.statSync(file).size;
        if (name.endsWith('.zip')) {
          const entries = await readZip(file);
          for (const data of entries.values()) expect(data.includes(SECRET)).toBe(false);
        }
      }
      expect(
        outputs.some((name) => name.endsWith('trace.zip.dropped.txt') || name.endsWith('.zip.dropped.txt')),
      ).toBe(true);
      expect(kept - fs.statSync(path.join(dir, 'test-results.json')).size).toBeLessThanOrEqual(
        2 * MiB + 64 * 1024,
      );
      expect(() => JSON.parse(fs.readFileSync(path.join(dir, 'test-results.json'), 'utf8'))).not.toThrow();
    } finally {
      server.close();
    }
  }, 180_000);
});
