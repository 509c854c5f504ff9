/**
 * The byte-level pieces of streaming redaction (redact-stream.ts): a scanner that replaces
 * every encoded form of a secret in a stream fed in chunks of any size, a byte budget, and
 * base64 decoding and encoding as streams (the HTML report embeds its zip in base64).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { minRedactedSecretLength, redactedText, secretForms } from './redact.ts';

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

export class Base64Decode extends Transform {
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

export class Base64Encode extends Transform {
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
