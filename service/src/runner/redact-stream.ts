/**
 * The streaming redaction of a run's output files: what runner/redact.ts does in
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
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isBinary } from './redact.ts';
import {
  drop,
  droppedFileSuffix,
  type RedactContext,
  type RedactReport,
  type RedactRequest,
  temporaryOf,
  zipMagic,
} from './redact-report.ts';
import {
  Base64Decode,
  Base64Encode,
  BudgetExceeded,
  ByteLimit,
  formatBytes,
  needlesOf,
  RedactingTransform,
} from './redact-transforms.ts';
import { nextEntry, openZip, rewriteZipFile } from './redact-zip.ts';

const reportTemplateStart = Buffer.from('<template id="playwrightReportBase64">data:application/zip;base64,');
const reportTemplateEnd = Buffer.from('</template>');

/** Redacts and bounds every file under `request.paths`, in place. */
export async function redactOutputs(request: RedactRequest): Promise<RedactReport> {
  const context: RedactContext = {
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

async function collect(target: string, files: Array<{ file: string; size: number }>, context: RedactContext) {
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

async function processFile(file: string, size: number, context: RedactContext): Promise<void> {
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
  context: RedactContext,
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

async function rewriteText(
  file: string,
  temporary: string,
  budget: number,
  mode: number,
  context: RedactContext,
) {
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
async function rewriteHtml(
  file: string,
  temporary: string,
  budget: number,
  mode: number,
  context: RedactContext,
) {
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
