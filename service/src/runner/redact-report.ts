/**
 * What streaming redaction is asked to do and what it reports (redact-stream.ts), shared by
 * the files' and the zips' rewriting.
 */
import { randomBytes } from 'node:crypto';

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

/** A temporary file next to `file`, renamed over it only once whole. */
export const temporaryOf = (file: string) => `${file}.${randomBytes(6).toString('hex')}${partialSuffix}`;

/** The first bytes of every zip (a local file header). */
export const zipMagic = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** One redaction's needles, request and the report being filled. */
export interface RedactContext {
  needles: Buffer[];
  request: RedactRequest;
  report: RedactReport;
}

/** Records a left-out file or entry (listing at most {@link maxReportedDrops}). */
export function drop(context: RedactContext, dropped: DroppedArtifact): void {
  context.report.droppedCount += 1;
  if (context.report.dropped.length < maxReportedDrops) context.report.dropped.push(dropped);
}
