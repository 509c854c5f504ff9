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
