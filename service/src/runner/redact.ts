/**
 * Removes project-secret values from everything a run stores: logs, error messages, the JSON
 * report, and files (traces, the HTML report, attachments). Playwright's trace records action
 * parameters (`fill` values, request headers), and the HTML report embeds traces and its own
 * data as zip archives, so archives are rewritten entry by entry.
 *
 * The run's files are redacted by the streaming pass of redact-stream.ts, in a child process
 * (redact-run.ts), with the forms {@link secretForms} gives; this file's in-memory functions
 * serve text (logs, errors) and small buffers, and hold whole files: never use them on a run's
 * output files in the service (their size is the run's to choose).
 *
 * Decisions:
 * - Values shorter than {@link minRedactedSecretLength} characters are not redacted: replacing
 *   one to three characters everywhere would destroy reports and archives while protecting
 *   nothing (such a value is guessable anyway).
 * - Each value is also matched in its encoded forms: JSON string escaping (once and twice),
 *   `encodeURIComponent` (with `%20` and with `+` for spaces), `encodeURI`, form encoding
 *   (`!` → `%21`), Latin-1 percent-encoding (`Ü` → `%DC`), HTML escaping (full and as DOM
 *   snapshots write it) and base64/base64url at every byte alignment (basic auth, data URLs).
 * - Binary media (PNG, JPEG, WebM…) are left as they are: pixels are not redacted, so a
 *   screenshot of a visible input that holds a secret still shows it.
 * - Replacement is `***`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import escapeHtml from 'escape-html';
import yauzl from 'yauzl';
import yazl from 'yazl';

export const minRedactedSecretLength = 4;
export const redactedText = '***';

/** Entries and files that are never rewritten (binary media and fonts). */
const binaryExtensions = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.webm',
  '.mp4',
  '.ico',
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.gz',
  '.tgz',
]);

export interface Redactor {
  /** False when there is nothing to redact (no value long enough). */
  readonly active: boolean;
  text(value: string): string;
  buffer(value: Buffer): Buffer;
}

/** `application/x-www-form-urlencoded` as browsers and URLSearchParams write it (`!` → `%21`, ` ` → `+`). */
function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/**
 * Percent-encoding of the Latin-1 bytes (a form on a page without a UTF-8 charset sends `Ü`
 * as `%DC`); null when the value has characters beyond Latin-1.
 */
function latin1PercentForms(value: string): string[] {
  if ([...value].some((char) => (char.codePointAt(0) ?? 0) > 0xff)) return [];
  const encode = (space: string) =>
    [...value]
      .map((char) => {
        if (/[A-Za-z0-9\-_.~*]/.test(char)) return char;
        if (char === ' ') return space;
        return `%${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  return [encode('+'), encode('%20')];
}

/**
 * The base64 characters that encode `value` wherever it sits in a longer encoded text (three
 * byte alignments), in base64 and base64url: basic-auth headers, data URLs, embedded files.
 * Only characters fully determined by the value are kept.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const first = Math.ceil((8 * shift) / 6);
    const end = Math.floor((8 * (shift + bytes.length)) / 6);
    const core = encoded.slice(first, end);
    if (core.length >= minBase64FormLength) forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}

/** Shorter base64 fragments would match inside unrelated binary data too often. */
const minBase64FormLength = 8;

/** Every form of `value` that may appear in a stored file. */
export function secretForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = new Set([
    value,
    json,
    JSON.stringify(json).slice(1, -1),
    JSON.stringify(value).slice(1, -1).replaceAll('/', '\\/'),
    encodeURIComponent(value),
    encodeURIComponent(value).replaceAll('%20', '+'),
    encodeURI(value),
    formEncode(value),
    formEncode(value).replaceAll('+', '%20'),
    ...latin1PercentForms(value),
    // The report's escaping (runs/report-html.ts): & < > " and ' as entities.
    escapeHtml(value),
    // A DOM snapshot escapes only what markup needs: & < > in text, & " in attributes.
    value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'),
    value.replaceAll('&', '&amp;').replaceAll('"', '&quot;'),
    ...base64Forms(value),
  ]);
  return [...forms].filter((form) => form.length >= minRedactedSecretLength);
}

export function createRedactor(values: Iterable<string>): Redactor {
  const forms = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' || value.length < minRedactedSecretLength) continue;
    for (const form of secretForms(value)) forms.add(form);
  }
  // Longest first, so a value containing another is replaced whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  const needles = ordered.map((form) => Buffer.from(form, 'utf8'));
  const replacement = Buffer.from(redactedText, 'utf8');
  return {
    active: ordered.length > 0,
    text(value) {
      let out = value;
      for (const form of ordered) if (out.includes(form)) out = out.split(form).join(redactedText);
      return out;
    },
    buffer(value) {
      let out = value;
      for (const needle of needles) {
        let index = out.indexOf(needle);
        if (index === -1) continue;
        const parts: Buffer[] = [];
        let from = 0;
        while (index !== -1) {
          parts.push(out.subarray(from, index), replacement);
          from = index + needle.length;
          index = out.indexOf(needle, from);
        }
        parts.push(out.subarray(from));
        out = Buffer.concat(parts);
      }
      return out;
    },
  };
}

/** Binary media and fonts: never rewritten (pixels are not redacted). */
export const isBinary = (name: string) => binaryExtensions.has(path.extname(name).toLowerCase());

const reportTemplateStart = '<template id="playwrightReportBase64">data:application/zip;base64,';
const reportTemplateEnd = '</template>';

/**
 * Redacts one file's content by its name: zip archives entry by entry (recursively), the HTML
 * report's embedded base64 zip, binary media untouched, anything else byte by byte.
 */
export async function redactContent(name: string, content: Buffer, redactor: Redactor): Promise<Buffer> {
  if (!redactor.active) return content;
  const extension = path.extname(name).toLowerCase();
  if (extension === '.zip' || isZip(content)) return (await redactZipBuffer(content, redactor)) ?? content;
  if (isBinary(name)) return content;
  if (extension === '.html' || extension === '.htm') return redactHtml(content, redactor);
  return redactor.buffer(content);
}

function isZip(content: Buffer): boolean {
  return content.length >= 4 && content.readUInt32LE(0) === 0x04034b50;
}

async function redactHtml(content: Buffer, redactor: Redactor): Promise<Buffer> {
  const html = content.toString('utf8');
  const start = html.indexOf(reportTemplateStart);
  const end = start === -1 ? -1 : html.indexOf(reportTemplateEnd, start);
  if (start === -1 || end === -1) return redactor.buffer(content);
  const dataStart = start + reportTemplateStart.length;
  const zip = Buffer.from(html.slice(dataStart, end), 'base64');
  const rewritten = (await redactZipBuffer(zip, redactor)) ?? zip;
  // The base64 block is not searched as text: a short value could match base64 by chance.
  return Buffer.from(
    redactor.text(html.slice(0, dataStart)) + rewritten.toString('base64') + redactor.text(html.slice(end)),
    'utf8',
  );
}

interface ZipEntryContent {
  name: string;
  data: Buffer;
  directory: boolean;
  mtime: Date;
  mode: number;
  compress: boolean;
}

function readZip(content: Buffer): Promise<ZipEntryContent[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(content, { lazyEntries: true, decodeStrings: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('unreadable zip'));
      const entries: ZipEntryContent[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        const base = {
          name: entry.fileName,
          mtime: entry.getLastModDate(),
          mode: (entry.externalFileAttributes >>> 16) & 0o7777 || 0o644,
          compress: entry.compressionMethod !== 0,
        };
        if (entry.fileName.endsWith('/')) {
          entries.push({ ...base, data: Buffer.alloc(0), directory: true });
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('unreadable zip entry'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.push({ ...base, data: Buffer.concat(chunks), directory: false });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

function writeZip(entries: ZipEntryContent[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    for (const entry of entries) {
      if (entry.directory) zip.addEmptyDirectory(entry.name, { mtime: entry.mtime, mode: entry.mode });
      else
        zip.addBuffer(entry.data, entry.name, {
          mtime: entry.mtime,
          mode: entry.mode,
          compress: entry.compress,
        });
    }
    zip.end();
  });
}

/**
 * A zip with every entry redacted (same entry names, same order), or undefined when nothing
 * changed (the original bytes can be kept).
 */
export async function redactZipBuffer(content: Buffer, redactor: Redactor): Promise<Buffer | undefined> {
  if (!redactor.active) return undefined;
  const entries = await readZip(content);
  let changed = false;
  for (const entry of entries) {
    if (entry.directory) continue;
    const redacted = await redactContent(entry.name, entry.data, redactor);
    if (redacted !== entry.data && !redacted.equals(entry.data)) {
      entry.data = redacted;
      changed = true;
    }
  }
  return changed ? writeZip(entries) : undefined;
}

/** Rewrites a file in place when it holds a secret; returns whether it changed. */
export async function redactFile(file: string, redactor: Redactor): Promise<boolean> {
  if (!redactor.active || isBinary(file)) return false;
  const content = await fs.readFile(file);
  const redacted = await redactContent(file, content, redactor);
  if (redacted === content || redacted.equals(content)) return false;
  await fs.writeFile(file, redacted);
  return true;
}

/** Redacts every regular file under `dir` (recursively) in place. */
export async function redactDirectory(dir: string, redactor: Redactor): Promise<number> {
  if (!redactor.active) return 0;
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let changed = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    if (await redactFile(path.join(entry.parentPath, entry.name), redactor)) changed += 1;
  }
  return changed;
}
