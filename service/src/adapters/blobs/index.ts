import type { Readable } from 'node:stream';

/**
 * Where files live: test attachments and run artifacts. The file backend is the embedded
 * default; the S3 backend serves installs with several instances.
 */
export interface BlobStore {
  put(key: string, body: Buffer | Readable, contentType?: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  stream(key: string): Promise<Readable | undefined>;
  exists(key: string): Promise<boolean>;
  /** The blob's size in bytes, read without its content; undefined when there is none. */
  size(key: string): Promise<number | undefined>;
  list(prefix: string): Promise<string[]>;
  delete(prefix: string): Promise<void>;
  /** A URL that downloads the blob without an API key until `expiresInSeconds` pass. */
  presign(key: string, expiresInSeconds: number, filename?: string): Promise<string>;
}

export function assertSafeKey(key: string): void {
  if (
    key.length === 0 ||
    key.startsWith('/') ||
    key.split('/').some((part) => part === '..' || part === '')
  ) {
    throw new Error(`Unsafe blob key: ${key}`);
  }
}

/** The type a blob is served with, from its file name (both backends and the signed-URL route). */
export function contentTypeOf(key: string): string {
  const extension = key.split('/').pop()?.split('.').pop()?.toLowerCase() ?? '';
  return contentTypes[extension] ?? 'application/octet-stream';
}

const contentTypes: Record<string, string> = {
  json: 'application/json',
  log: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  webm: 'video/webm',
  mp4: 'video/mp4',
  zip: 'application/zip',
  tgz: 'application/gzip',
  gz: 'application/gzip',
};
