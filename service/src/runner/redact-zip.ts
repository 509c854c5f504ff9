/**
 * Zip archives rewritten entry by entry (redact-stream.ts): traces, the HTML report's
 * `data/*.zip` and blob reports, with yauzl/yazl streams; zips inside zips through a temporary
 * file. An entry past the entry cap is left out and named in a `stepdeck-dropped.txt` entry,
 * so the archive stays a valid zip and a trace stays a trace.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline as pipelineCallback, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { isBinary } from './redact.ts';
import { drop, droppedEntryName, type RedactContext, temporaryOf, zipMagic } from './redact-report.ts';
import { ByteLimit, formatBytes, RedactingTransform } from './redact-transforms.ts';

export function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, decodeStrings: true, autoClose: false }, (error, zip) => {
      if (error || !zip) reject(error ?? new Error(`unreadable zip ${file}`));
      else resolve(zip);
    });
  });
}

export function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
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

export function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
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
export async function rewriteZipFile(
  input: string,
  output: string,
  budget: number,
  mode: number,
  context: RedactContext,
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
