import { Readable } from 'node:stream';
import {
  createTestData,
  type DataSet,
  type ExportedTestDocument,
  exportedSharedSteps,
  exportedTest,
  exportManifest,
  testExportFormatVersion,
} from '@stepdeck/contract';
import yauzl from 'yauzl';
import yazl from 'yazl';
import type { z } from 'zod';
import { appError } from '../../errors.ts';
import { zodMessage } from '../../plugins/errors.ts';
import { normalizeSteps } from '../step-trees/public.ts';
import { requireDataColumns } from './data-references.ts';

/**
 * The export archive: writing the zip, and reading one back within caps on entries and
 * inflated bytes, its manifest, shared steps and test documents checked against the contract.
 * What the documents become in the database is transfer.ts's concern.
 */

/**
 * Import caps: entries in the archive, total and per-entry uncompressed bytes. Entries are held in
 * memory while the import is validated, so the caps bound the memory one import can take; they are
 * counted as bytes are inflated, never taken from the archive's own (forgeable) size fields alone.
 * One entry fits the largest attachment an upload allows (25 MiB, base64 in its test document).
 */
export const importLimits = {
  maxEntries: 25_000,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntryBytes: 40 * 1024 * 1024,
};

/** Entries smaller than this are stored uncompressed in export archives. */
const storeBelowBytes = 8 * 1024;

export function zipFiles(files: Map<string, Buffer | string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  // Small entries are stored: deflating 10000 sub-kilobyte documents costs seconds (one zlib
  // instance each) and saves little. Larger ones are deflated as streams, one at a time as the
  // archive is written (addBuffer would start every deflate at once).
  for (const [name, content] of files) {
    const buffer = typeof content === 'string' ? Buffer.from(content) : content;
    if (buffer.length < storeBelowBytes)
      zip.addBuffer(buffer, name, { mtime: new Date(0), compressionLevel: 0 });
    else zip.addReadStream(Readable.from([buffer]), name, { mtime: new Date(0), size: buffer.length });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

const tooLarge = (what: string, limit: number) =>
  `Archive is too large uncompressed: ${what} exceeds the limit of ${limit} bytes`;

/**
 * Reads every entry, refusing traversal, oversize and over-count archives before anything is
 * written. The central directory is checked first (an archive declaring more than the caps is
 * refused before inflating a byte); then entries are inflated one at a time while counting the
 * bytes, and the stream is destroyed as soon as a cap is passed, whatever the headers declared.
 */
export function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true },
      (error, zip) => {
        if (error || !zip)
          return reject(appError('ARCHIVE_REJECTED', `Malformed archive: ${error?.message ?? 'unreadable'}`));
        if (zip.entryCount > importLimits.maxEntries)
          return reject(
            appError(
              'ARCHIVE_REJECTED',
              `Archive has ${zip.entryCount} entries; the limit is ${importLimits.maxEntries}`,
            ),
          );
        let settled = false;
        const fail = (message: string) => {
          if (settled) return;
          settled = true;
          zip.close();
          reject(appError('ARCHIVE_REJECTED', message));
        };
        const files: yauzl.Entry[] = [];
        let declared = 0;
        zip.on('error', (err: Error) => fail(`Malformed archive: ${err.message}`));
        zip.on('entry', (entry: yauzl.Entry) => {
          const name = entry.fileName;
          if (name.startsWith('/') || name.includes('\\') || name.split('/').includes('..'))
            return fail(`Archive entry "${name}" has an unsafe path`);
          if (!name.endsWith('/')) {
            if (entry.uncompressedSize > importLimits.maxEntryBytes)
              return fail(tooLarge(`entry "${name}"`, importLimits.maxEntryBytes));
            declared += entry.uncompressedSize;
            if (declared > importLimits.maxTotalBytes)
              return fail(tooLarge('the total of its entries', importLimits.maxTotalBytes));
            files.push(entry);
          }
          zip.readEntry();
        });
        zip.on('end', () => {
          const out = new Map<string, Buffer>();
          let total = 0;
          const next = (index: number) => {
            if (settled) return;
            const entry = files[index];
            if (!entry) {
              settled = true;
              return resolve(out);
            }
            zip.openReadStream(entry, (streamError, stream) => {
              if (streamError || !stream)
                return fail(`Malformed archive: ${streamError?.message ?? 'unreadable entry'}`);
              const chunks: Buffer[] = [];
              let size = 0;
              const refuse = (message: string) => {
                stream.destroy();
                chunks.length = 0;
                fail(message);
              };
              stream.on('data', (chunk: Buffer) => {
                size += chunk.length;
                total += chunk.length;
                if (size > importLimits.maxEntryBytes)
                  return refuse(tooLarge(`entry "${entry.fileName}"`, importLimits.maxEntryBytes));
                if (total > importLimits.maxTotalBytes)
                  return refuse(tooLarge('the total of its entries', importLimits.maxTotalBytes));
                chunks.push(chunk);
              });
              stream.on('error', (err) => refuse(`Malformed archive: ${err.message}`));
              stream.on('end', () => {
                out.set(entry.fileName, Buffer.concat(chunks));
                next(index + 1);
              });
            });
          };
          next(0);
        });
        zip.readEntry();
      },
    );
  });
}

/** An archive's documents, checked; `errors` names each entry left out and why. */
export interface ArchiveContents {
  docs: Array<{
    file: string;
    doc: ExportedTestDocument;
    steps: ReturnType<typeof normalizeSteps>;
    dataSet: DataSet | null;
  }>;
  sharedSteps: Array<{
    doc: z.infer<typeof exportedSharedSteps>[number];
    step: ReturnType<typeof normalizeSteps>[number] | undefined;
  }>;
  errors: Array<{ file: string; error: string }>;
}

/**
 * Reads an export archive: a missing or unreadable manifest, or another format version, refuses
 * the whole import (400); a test document or shared step that does not check is left out and
 * named in `errors`.
 */
export async function readExportArchive(zip: Buffer): Promise<ArchiveContents> {
  const entries = await unzip(zip);
  const manifestRaw = entries.get('manifest.json');
  if (!manifestRaw) throw appError('ARCHIVE_MANIFEST_MISSING');
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse(manifestRaw.toString('utf8'));
  } catch {
    throw appError('ARCHIVE_MANIFEST_NOT_JSON');
  }
  const manifestCheck = exportManifest.safeParse(manifestJson);
  if (!manifestCheck.success) throw appError('ARCHIVE_MANIFEST_INVALID', zodMessage(manifestCheck.error));
  const manifest = manifestCheck.data;
  if (manifest.formatVersion !== testExportFormatVersion)
    throw appError('ARCHIVE_FORMAT_UNSUPPORTED', String(manifest.formatVersion), testExportFormatVersion);
  const errors: Array<{ file: string; error: string }> = [];
  let sharedDocs: z.infer<typeof exportedSharedSteps> = [];
  const sharedRaw = entries.get('shared-steps.json');
  if (sharedRaw) {
    try {
      const parsed: unknown = JSON.parse(sharedRaw.toString('utf8'));
      if (!Array.isArray(parsed)) throw new Error('not an array');
      const check = exportedSharedSteps.safeParse(parsed);
      if (!check.success) throw new Error(zodMessage(check.error));
      sharedDocs = check.data;
    } catch (error) {
      errors.push({ file: 'shared-steps.json', error: `invalid: ${(error as Error).message}` });
      sharedDocs = [];
    }
  }
  const sharedIds = new Set(sharedDocs.map((doc) => doc.id));
  const docs: Array<{
    file: string;
    doc: ExportedTestDocument;
    steps: ReturnType<typeof normalizeSteps>;
    dataSet: DataSet | null;
  }> = [];
  for (const [file, content] of entries) {
    if (file === 'manifest.json' || file === 'shared-steps.json') continue;
    if (!file.startsWith('tests/') || !file.endsWith('.json')) {
      errors.push({ file, error: 'unexpected entry' });
      continue;
    }
    try {
      const shape = exportedTest.safeParse(JSON.parse(content.toString('utf8')));
      if (!shape.success) throw new Error(zodMessage(shape.error));
      const doc = shape.data;
      const check = createTestData.safeParse({
        name: doc.name,
        status: doc.status,
        directory: doc.directory,
        config: doc.config,
        vars: doc.vars,
        parameters: doc.parameters,
        dataSet: doc.dataSet,
      });
      if (!check.success) throw new Error(zodMessage(check.error));
      const steps = normalizeSteps(doc.steps ?? [], 'steps', sharedIds);
      requireDataColumns(steps, check.data.dataSet ?? null);
      docs.push({ file, doc, steps, dataSet: check.data.dataSet ?? null });
    } catch (error) {
      errors.push({ file, error: (error as Error).message });
    }
  }
  const sharedSteps = sharedDocs.flatMap((doc) => {
    try {
      return [
        {
          doc,
          step: normalizeSteps(
            [{ ...doc, shared: true, id: undefined, stepId: undefined }],
            'shared',
            sharedIds,
          )[0],
        },
      ];
    } catch (error) {
      errors.push({ file: 'shared-steps.json', error: `${doc.name}: ${(error as Error).message}` });
      return [];
    }
  });
  return { docs, sharedSteps, errors };
}
