/**
 * The streaming redaction of a run's output files (issue 39): what runner/redact.ts does in
 * memory, done chunk by chunk so that memory stays flat whatever a run produced, and bounded
 * (caps on each file or zip entry and on the total kept). It runs in a child process of the
 * run (redact-main.ts, started by redact-run.ts), never in the service.
 *
 * - Every file is rewritten to a temporary file next to it (`<name>.<random>.stepdeck-partial`)
 *   and renamed over the original only once whole: a file is either the original, or the
 *   redacted one, or gone. A file with nothing to change keeps its original bytes.
 * - Text is scanned with an overlap of the longest encoded form less one byte, so a value that
 *   straddles two chunks is caught. Every byte inside an occurrence of any form is replaced;
 *   overlapping occurrences become one `***`.
 * - Zip archives (traces, the HTML report's `data/*.zip`, blob reports) are rewritten entry by
 *   entry with yauzl/yazl streams, zips inside zips through a temporary file (each at most
 *   one entry's cap). An entry whose uncompressed size passes the entry cap is left out and
 *   named in a `stepdeck-dropped.txt` entry: the archive stays a valid zip and a trace stays
 *   a trace (the viewer reads `*.trace`/`*.network` entries and shows a missing resource as
 *   missing).
 * - The HTML report's embedded zip (`<template id="playwrightReportBase64">`) is decoded to a
 *   temporary file, rewritten like any zip and encoded back; the page around it is text.
 * - A plain file past the entry cap, and every file once the total would pass its cap, is
 *   removed and replaced by `<name>.dropped.txt` saying what and why. The paths are taken in
 *   the order given (the executor: the JSON report, the tests' files, the HTML report) and the
 *   files under each smallest first, so the many small ones (error context, screenshots) are
 *   kept before one large trace. Symbolic links and other non-regular files are removed
 *   (their target is not the run's to store).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline as pipelineCallback, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { isBinary, minRedactedSecretLength, redactedText, secretForms } from './redact.ts';

/** Suffix of the temporary files a rewrite leaves only if it is killed (swept by redact-run.ts). */
export const partialSuffix = '.stepdeck-partial';
/** The entry that names what a rewritten zip left out. */
export const droppedEntryName = 'stepdeck-dropped.txt';
/** The file that replaces a dropped file: `<name>.dropped.txt`. */
export const droppedFileSuffix = '.dropped.txt';

export interface RedactRequest {
  /** Files and folders (walked recursively); missing ones are skipped. */
  paths: string[];
  /** Values to replace (with their encoded forms); shorter than 4 characters: ignored. */
  secrets: string[];
  /** Largest file or zip entry kept (uncompressed bytes). */
  entryMaxBytes: number;
  /** How notes name the entry cap, e.g. `ARTIFACT_ENTRY_MAX_BYTES (64 MiB)`. */
  entryLabel: string;
  /** Most bytes the kept files may total. */
  totalMaxBytes: number;
  /** How notes name the total cap. */
  totalLabel: string;
}

export interface DroppedArtifact {
  /** The file (absolute); `entry` is the path inside it when the file was kept. */
  path: string;
  entry?: string;
  bytes: number;
  reason: 'entry' | 'total' | 'link';
}

export interface RedactReport {
  /** Files rewritten (a value replaced or an entry left out) or removed. */
  changed: number;
  /** Bytes of the files kept, as they are now. */
  keptBytes: number;
  /** What was left out (at most {@link maxReportedDrops} listed). */
  dropped: DroppedArtifact[];
  droppedCount: number;
  /** True when a file was removed because the total cap was reached. */
  overTotal: boolean;
}

export const maxReportedDrops = 200;

/** The byte forms of every value, longest first. */
export function needlesOf(secrets: Iterable<string>): Buffer[] {
  const forms = new Set<string>();
  for (const value of secrets) {
    if (typeof value !== 'string' || value.length < minRedactedSecretLength) continue;
    for (const form of secretForms(value)) forms.add(form);
  }
  return [...forms].map((form) => Buffer.from(form, 'utf8')).sort((a, b) => b.length - a.length);
}

const replacement = Buffer.from(redactedText, 'utf8');

/**
 * Replaces every occurrence of the needles in a byte stream fed in chunks of any size, keeping
 * the last `longest - 1` bytes until the next chunk (a match starting before that point lies
 * wholly in what was seen). Positions are absolute stream offsets.
 */
export class Scanner {
  /** Occurrences replaced so far. */
  matches = 0;
  private buffer: Buffer = Buffer.alloc(0);
  /** Stream offset of `buffer[0]`. */
  private base = 0;
  /** Stream offset up to which output is decided (past `base` inside a replaced occurrence). */
  private decided = 0;
  private readonly keep: number;
  private readonly needles: Buffer[];

  constructor(needles: Buffer[]) {
    this.needles = needles;
    this.keep = Math.max(0, ...needles.map((needle) => needle.length - 1));
  }

  write(chunk: Buffer): Buffer {
    if (this.needles.length === 0) return chunk;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    return this.scan(false);
  }

  end(): Buffer {
    if (this.needles.length === 0) return Buffer.alloc(0);
    return this.scan(true);
  }

  private scan(final: boolean): Buffer {
    const buffer = this.buffer;
    // Matches starting before `limit` are complete in `buffer`; later ones wait for more.
    const limit = final ? buffer.length : Math.max(0, buffer.length - this.keep);
    const found: Array<[number, number]> = [];
    for (const needle of this.needles) {
      for (let at = buffer.indexOf(needle); at !== -1 && at < limit; at = buffer.indexOf(needle, at + 1))
        found.push([at, at + needle.length]);
    }
    let decided = this.decided - this.base;
    const out: Buffer[] = [];
    if (found.length > 0) {
      found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
      for (const [start, end] of found) {
        if (end <= decided) continue;
        // Overlaps the occurrence just replaced (also one that began in the last chunk): it grows.
        if (start < decided) {
          decided = end;
          continue;
        }
        out.push(buffer.subarray(decided, start), replacement);
        this.matches += 1;
        decided = end;
      }
    }
    if (decided < limit) {
      out.push(buffer.subarray(decided, limit));
      decided = limit;
    }
    this.decided = this.base + decided;
    this.buffer = buffer.subarray(limit);
    this.base += limit;
    return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
  }
}

/** A {@link Scanner} as a stream. */
export class RedactingTransform extends Transform {
  private readonly scanner: Scanner;

  constructor(needles: Buffer[]) {
    super();
    this.scanner = new Scanner(needles);
  }

  get matches(): number {
    return this.scanner.matches;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const out = this.scanner.write(chunk);
    if (out.length > 0) this.push(out);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    const out = this.scanner.end();
    if (out.length > 0) this.push(out);
    callback();
  }
}

export class BudgetExceeded extends Error {}

/** Passes bytes through until more than `limit` went by, then fails with {@link BudgetExceeded}. */
export class ByteLimit extends Transform {
  bytes = 0;
  private readonly limit: number;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) callback(new BudgetExceeded(`more than ${this.limit} bytes`));
    else callback(null, chunk);
  }
}

class Base64Decode extends Transform {
  private rest = '';

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const text = this.rest + chunk.toString('latin1').replace(/\s+/g, '');
    const usable = text.length - (text.length % 4);
    this.rest = text.slice(usable);
    callback(null, usable > 0 ? Buffer.from(text.slice(0, usable), 'base64') : undefined);
  }

  override _flush(callback: TransformCallback): void {
    callback(null, this.rest ? Buffer.from(this.rest, 'base64') : undefined);
  }
}

class Base64Encode extends Transform {
  private rest: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const usable = bytes.length - (bytes.length % 3);
    this.rest = Buffer.from(bytes.subarray(usable));
    callback(
      null,
      usable > 0 ? Buffer.from(bytes.subarray(0, usable).toString('base64'), 'latin1') : undefined,
    );
  }

  override _flush(callback: TransformCallback): void {
    callback(null, this.rest.length > 0 ? Buffer.from(this.rest.toString('base64'), 'latin1') : undefined);
  }
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} bytes`;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

const temporaryOf = (file: string) => `${file}.${randomBytes(6).toString('hex')}${partialSuffix}`;

const reportTemplateStart = Buffer.from('<template id="playwrightReportBase64">data:application/zip;base64,');
const reportTemplateEnd = Buffer.from('</template>');
const zipMagic = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

interface Context {
  needles: Buffer[];
  request: RedactRequest;
  report: RedactReport;
}

function drop(context: Context, dropped: DroppedArtifact): void {
  context.report.droppedCount += 1;
  if (context.report.dropped.length < maxReportedDrops) context.report.dropped.push(dropped);
}

/** Redacts and bounds every file under `request.paths`, in place. */
export async function redactOutputs(request: RedactRequest): Promise<RedactReport> {
  const context: Context = {
    needles: needlesOf(request.secrets),
    request,
    report: { changed: 0, keptBytes: 0, dropped: [], droppedCount: 0, overTotal: false },
  };
  for (const target of request.paths) {
    const files: Array<{ file: string; size: number }> = [];
    await collect(path.resolve(target), files, context);
    files.sort((a, b) => a.size - b.size || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    for (const { file, size } of files) await processFile(file, size, context);
  }
  return context.report;
}

async function collect(target: string, files: Array<{ file: string; size: number }>, context: Context) {
  let stat: fs.Stats;
  try {
    stat = await fsp.lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (stat.isDirectory()) {
    for (const name of (await fsp.readdir(target)).sort())
      await collect(path.join(target, name), files, context);
    return;
  }
  if (stat.isFile()) {
    files.push({ file: target, size: stat.size });
    return;
  }
  // A link's target (or a device, a pipe) is not the run's output: it is never stored.
  await fsp.rm(target, { force: true });
  context.report.changed += 1;
  drop(context, { path: target, bytes: 0, reason: 'link' });
}

async function processFile(file: string, size: number, context: Context): Promise<void> {
  const { request, report, needles } = context;
  const budget = request.totalMaxBytes - report.keptBytes;
  const kind = await kindOf(file, size);
  // Archives are bounded entry by entry; any other file as a whole.
  if (kind !== 'zip' && kind !== 'html' && size > request.entryMaxBytes)
    return dropFile(file, size, 'entry', context);
  const rewrite =
    kind === 'zip'
      ? needles.length > 0 || (await hasEntryOver(file, request.entryMaxBytes))
      : kind === 'html' || (kind === 'text' && needles.length > 0);
  if (!rewrite) {
    if (size > budget) return dropFile(file, size, 'total', context);
    report.keptBytes += size;
    return;
  }
  const mode = (await fsp.stat(file)).mode & 0o777;
  const temporary = temporaryOf(file);
  try {
    let changed: boolean;
    try {
      if (kind === 'zip') changed = await rewriteZipFile(file, temporary, budget, mode, context, file);
      else if (kind === 'html') changed = await rewriteHtml(file, temporary, budget, mode, context);
      else changed = await rewriteText(file, temporary, budget, mode, context);
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error;
      return dropFile(file, size, 'total', context);
    }
    if (changed) {
      await fsp.rename(temporary, file);
      report.changed += 1;
    }
    const kept = (await fsp.stat(file)).size;
    if (kept > budget) return dropFile(file, kept, 'total', context);
    report.keptBytes += kept;
  } finally {
    await fsp.rm(temporary, { force: true });
  }
}

/** `html` only for a page that embeds the report's zip. */
async function kindOf(file: string, size: number): Promise<'zip' | 'html' | 'binary' | 'text'> {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.zip') return 'zip';
  if (size >= 4) {
    const handle = await fsp.open(file, 'r');
    try {
      const head = Buffer.alloc(4);
      await handle.read(head, 0, 4, 0);
      if (head.equals(zipMagic)) return 'zip';
    } finally {
      await handle.close();
    }
  }
  if (isBinary(file)) return 'binary';
  if (
    (extension === '.html' || extension === '.htm') &&
    (await findInFile(file, reportTemplateStart, 0)) !== -1
  )
    return 'html';
  return 'text';
}

/** Whether an entry of the zip passes `max` (its central directory only is read). */
async function hasEntryOver(file: string, max: number): Promise<boolean> {
  const zip = await openZip(file);
  zip.on('error', () => {});
  try {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip))
      if (entry.uncompressedSize > max) return true;
    return false;
  } finally {
    zip.close();
  }
}

async function dropFile(
  file: string,
  bytes: number,
  reason: 'entry' | 'total',
  context: Context,
): Promise<void> {
  const { request, report } = context;
  await fsp.rm(file, { force: true });
  report.changed += 1;
  if (reason === 'total') report.overTotal = true;
  drop(context, { path: file, bytes, reason });
  const why =
    reason === 'entry'
      ? `larger than ${request.entryLabel}`
      : `the run's artifacts passed ${request.totalLabel}`;
  await fsp.writeFile(
    `${file}${droppedFileSuffix}`,
    `Stepdeck dropped ${path.basename(file)} (${formatBytes(bytes)}): ${why}.\n`,
    { mode: 0o644 },
  );
}

async function rewriteText(file: string, temporary: string, budget: number, mode: number, context: Context) {
  const scanner = new RedactingTransform(context.needles);
  await pipeline(
    fs.createReadStream(file),
    scanner,
    new ByteLimit(budget),
    fs.createWriteStream(temporary, { flags: 'wx', mode }),
  );
  return scanner.matches > 0;
}

/** Offset of `needle` in `file` at or after `from`, or -1 (read in chunks, with an overlap). */
async function findInFile(file: string, needle: Buffer, from: number): Promise<number> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = from;
  for await (const chunk of fs.createReadStream(file, { start: from })) {
    const window = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const at = window.indexOf(needle);
    if (at !== -1) return offset - carry.length + at;
    const keep = Math.min(window.length, needle.length - 1);
    carry = Buffer.from(window.subarray(window.length - keep));
    offset += (chunk as Buffer).length;
  }
  return -1;
}

/**
 * The HTML report's page: text before and after its embedded base64 zip, the zip rewritten
 * like any other (its base64 is not searched as text: a short value could match it by chance).
 * A page without the embedded zip is text.
 */
async function rewriteHtml(file: string, temporary: string, budget: number, mode: number, context: Context) {
  const start = await findInFile(file, reportTemplateStart, 0);
  const dataStart = start + reportTemplateStart.length;
  const end = start === -1 ? -1 : await findInFile(file, reportTemplateEnd, dataStart);
  if (start === -1 || end === -1) return rewriteText(file, temporary, budget, mode, context);
  const sink = new ByteLimit(budget);
  const written = pipeline(sink, fs.createWriteStream(temporary, { flags: 'wx', mode }));
  written.catch(() => {});
  const zipIn = temporaryOf(file);
  const zipOut = temporaryOf(file);
  try {
    const before = new RedactingTransform(context.needles);
    await pipeline(fs.createReadStream(file, { start: 0, end: dataStart - 1 }), before, sink, { end: false });
    let zipChanged = false;
    if (end > dataStart) {
      await pipeline(
        fs.createReadStream(file, { start: dataStart, end: end - 1 }),
        new Base64Decode(),
        fs.createWriteStream(zipIn, { flags: 'wx', mode: 0o600 }),
      );
      zipChanged = await rewriteZipFile(
        zipIn,
        zipOut,
        Number.POSITIVE_INFINITY,
        0o600,
        context,
        `${file}:embedded.zip`,
      );
    }
    if (zipChanged) await pipeline(fs.createReadStream(zipOut), new Base64Encode(), sink, { end: false });
    else if (end > dataStart)
      await pipeline(fs.createReadStream(file, { start: dataStart, end: end - 1 }), sink, { end: false });
    const after = new RedactingTransform(context.needles);
    await pipeline(fs.createReadStream(file, { start: end }), after, sink);
    await written;
    return zipChanged || before.matches > 0 || after.matches > 0;
  } catch (error) {
    sink.destroy();
    await written.catch(() => {});
    throw error;
  } finally {
    await fsp.rm(zipIn, { force: true });
    await fsp.rm(zipOut, { force: true });
  }
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, decodeStrings: true, autoClose: false }, (error, zip) => {
      if (error || !zip) reject(error ?? new Error(`unreadable zip ${file}`));
      else resolve(zip);
    });
  });
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const done = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry) => {
      done();
      resolve(entry);
    };
    const onEnd = () => {
      done();
      resolve(null);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream) reject(error ?? new Error(`unreadable zip entry ${entry.fileName}`));
      else resolve(stream);
    });
  });
}

/** The first `bytes` bytes of a stream, and a stream of everything (those bytes included). */
async function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* all() {
    if (head.length > 0) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, stream: Readable.from(all(), { objectMode: false }) };
}

/**
 * Rewrites a zip entry by entry into `output` (a new file); returns whether anything changed
 * (a value replaced, an entry left out). `label` names the archive in the report.
 */
async function rewriteZipFile(
  input: string,
  output: string,
  budget: number,
  mode: number,
  context: Context,
  label: string,
): Promise<boolean> {
  const { request, needles } = context;
  const zipIn = await openZip(input);
  // yauzl may report an error after the entry that caused it was handled.
  zipIn.on('error', () => {});
  const zipOut = new yazl.ZipFile();
  const written = pipeline(
    zipOut.outputStream,
    new ByteLimit(budget),
    fs.createWriteStream(output, { flags: 'wx', mode }),
  );
  // Every wait below also ends when writing failed (the budget passed): yazl stops reading.
  let failure: unknown;
  const failed = new Promise<never>((_, reject) => {
    written.catch((error: unknown) => {
      failure = error;
      reject(error);
    });
  });
  failed.catch(() => {});
  const race = <T>(promise: Promise<T>) => Promise.race([promise, failed]);
  const notes: string[] = [];
  let changed = false;
  const temporaries: string[] = [];
  try {
    for (let entry = await race(nextEntry(zipIn)); entry; entry = await race(nextEntry(zipIn))) {
      const name = entry.fileName;
      const options = {
        mtime: entry.getLastModDate(),
        mode: (entry.externalFileAttributes >>> 16) & 0o7777 || 0o644,
      };
      if (name.endsWith('/')) {
        zipOut.addEmptyDirectory(name, options);
        continue;
      }
      if (entry.uncompressedSize > request.entryMaxBytes) {
        notes.push(
          `${name}: ${formatBytes(entry.uncompressedSize)}, larger than ${request.entryLabel}: left out`,
        );
        drop(context, { path: label, entry: name, bytes: entry.uncompressedSize, reason: 'entry' });
        changed = true;
        continue;
      }
      const entryOptions = { ...options, compress: entry.compressionMethod !== 0 };
      const source = await race(openEntry(zipIn, entry));
      if (isBinary(name)) {
        await race(addStream(zipOut, source, name, entryOptions));
        continue;
      }
      const peeked = await race(peek(source, 4));
      if (path.extname(name).toLowerCase() === '.zip' || peeked.head.subarray(0, 4).equals(zipMagic)) {
        const nestedIn = temporaryOf(output);
        const nestedOut = temporaryOf(output);
        temporaries.push(nestedIn, nestedOut);
        await race(pipeline(peeked.stream, fs.createWriteStream(nestedIn, { flags: 'wx', mode: 0o600 })));
        const nestedChanged = await rewriteZipFile(
          nestedIn,
          nestedOut,
          Number.POSITIVE_INFINITY,
          0o600,
          context,
          `${label}:${name}`,
        );
        changed ||= nestedChanged;
        await race(
          addStream(zipOut, fs.createReadStream(nestedChanged ? nestedOut : nestedIn), name, entryOptions),
        );
        await fsp.rm(nestedIn, { force: true });
        await fsp.rm(nestedOut, { force: true });
        continue;
      }
      const scanner = new RedactingTransform(needles);
      pipelineCallback(peeked.stream, scanner, () => {});
      await race(addStream(zipOut, scanner, name, entryOptions));
      if (scanner.matches > 0) changed = true;
    }
    if (notes.length > 0)
      zipOut.addBuffer(
        Buffer.from(
          `Stepdeck left out of this archive what passed its cap (ARTIFACT_ENTRY_MAX_BYTES):\n${notes.join('\n')}\n`,
        ),
        droppedEntryName,
        { mtime: new Date() },
      );
    zipOut.end();
    await written;
    return changed;
  } catch (error) {
    (zipOut.outputStream as Readable).destroy();
    await written.catch(() => {});
    throw failure ?? error;
  } finally {
    zipIn.close();
    for (const temporary of temporaries) await fsp.rm(temporary, { force: true });
  }
}

/** Adds a stream as an entry and resolves once yazl read all of it. */
function addStream(
  zip: yazl.ZipFile,
  stream: Readable,
  name: string,
  options: { mtime: Date; mode: number; compress: boolean },
): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('end', () => resolve());
    stream.once('error', reject);
    zip.addReadStream(stream, name, options);
  });
}
