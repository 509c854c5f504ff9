import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertSafeKey, type BlobStore, contentTypeOf } from './index.ts';

export interface S3Options {
  bucket: string;
  region?: string;
  /** For S3-compatible servers (MinIO, R2...): path-style addressing is used. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Key prefix inside the bucket. */
  prefix?: string;
  /** Keys per ListObjectsV2 page (S3 caps it at 1000, the default). */
  pageSize?: number;
  /** Bytes per multipart part for streams (default 8 MiB; S3's minimum is 5 MiB). */
  partSize?: number;
}

const defaultPartSize = 8 * 1024 * 1024;

const notFound = (error: unknown) => {
  const name = (error as { name?: string }).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || status === 404;
};

/**
 * Blobs in an S3-compatible bucket; presigned GET URLs come straight from S3.
 * `list` and `delete` treat their prefix as a folder, like the file backend: `runs/ab`
 * covers `runs/ab/...` (and, for `delete`, the object `runs/ab` itself), never `runs/abc/...`.
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;
  private readonly pageSize: number | undefined;
  private readonly partSize: number;

  constructor(options: S3Options, client?: S3Client) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ? `${options.prefix.replace(/\/+$/, '')}/` : '';
    this.pageSize = options.pageSize;
    this.partSize = Math.max(options.partSize ?? defaultPartSize, 5 * 1024 * 1024);
    this.client =
      client ??
      new S3Client({
        region: options.region ?? 'us-east-1',
        ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
        ...(options.accessKeyId && options.secretAccessKey
          ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
          : {}),
      });
  }

  /** The object key of a blob key. */
  objectKey(key: string): string {
    assertSafeKey(key);
    return `${this.prefix}${key}`;
  }

  /**
   * A Buffer is one PutObject. A stream (length unknown) is read a part at a time: one
   * PutObject when it fits in a part, else a multipart upload, so memory stays bounded.
   */
  async put(key: string, body: Buffer | Readable, contentType?: string): Promise<void> {
    const objectKey = this.objectKey(key);
    const type = contentType ?? contentTypeOf(key);
    if (Buffer.isBuffer(body)) {
      await this.putObject(objectKey, body, type);
      return;
    }
    let uploadId: string | undefined;
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    try {
      for await (const part of chunked(body, this.partSize)) {
        if (!part.last || uploadId) {
          if (!uploadId) {
            const created = await this.client.send(
              new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, ContentType: type }),
            );
            uploadId = created.UploadId;
            if (!uploadId) throw new Error('S3 returned no multipart upload id');
          }
          const PartNumber = parts.length + 1;
          const uploaded = await this.client.send(
            new UploadPartCommand({
              Bucket: this.bucket,
              Key: objectKey,
              UploadId: uploadId,
              PartNumber,
              Body: part.bytes,
            }),
          );
          parts.push({ ETag: uploaded.ETag, PartNumber });
        } else {
          await this.putObject(objectKey, part.bytes, type);
        }
      }
      if (uploadId) {
        await this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: objectKey,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        );
      }
    } catch (error) {
      if (uploadId) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw error;
    }
  }

  private async putObject(objectKey: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: bytes, ContentType: contentType }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      if (!result.Body) return undefined;
      return Buffer.from(await result.Body.transformToByteArray());
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async stream(key: string): Promise<Readable | undefined> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return result.Body as Readable | undefined;
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.size(key)) !== undefined;
  }

  async size(key: string): Promise<number | undefined> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return head.ContentLength ?? 0;
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  /** Every key under the folder `prefix` (all keys for ''), sorted. */
  async list(prefix: string): Promise<string[]> {
    return (await this.listObjects(folder(prefix))).map((key) => key.slice(this.prefix.length)).sort();
  }

  /** Full object keys starting with `this.prefix + start`, across every page. */
  private async listObjects(start: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${this.prefix}${start}`,
          ContinuationToken: token,
          MaxKeys: this.pageSize,
        }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** Deletes the object `prefix` and every key under the folder `prefix`. */
  async delete(prefix: string): Promise<void> {
    const under = folder(prefix);
    const keys = await this.listObjects(under);
    const exact = prefix.replace(/\/+$/, '');
    if (exact && (await this.exists(exact))) keys.push(this.objectKey(exact));
    for (let index = 0; index < keys.length; index += 1000) {
      const batch = keys.slice(index, index + 1000);
      const result = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = result.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new Error(
          `S3 refused to delete ${failed.length} object(s), first ${first?.Key}: ${first?.Code} ${first?.Message}`,
        );
      }
    }
  }

  async presign(key: string, expiresInSeconds: number, filename?: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ...(filename
        ? { ResponseContentDisposition: `attachment; filename="${filename.replaceAll('"', '')}"` }
        : {}),
    });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds });
  }
}

/** '' stays '' (everything); otherwise the prefix as a folder, ending with one '/'. */
function folder(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed) assertSafeKey(trimmed);
  return trimmed ? `${trimmed}/` : '';
}

/** The stream's bytes in parts of `size` (the last one possibly shorter, or empty). */
async function* chunked(stream: Readable, size: number): AsyncGenerator<{ bytes: Buffer; last: boolean }> {
  let pending: Buffer[] = [];
  let length = 0;
  let ready: Buffer | undefined;
  for await (const chunk of stream) {
    let data: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    while (length + data.length >= size) {
      const take = size - length;
      pending.push(data.subarray(0, take));
      data = data.subarray(take);
      // Hold a full part back until more bytes arrive: only then is it surely not the last.
      if (ready) yield { bytes: ready, last: false };
      ready = Buffer.concat(pending);
      pending = [];
      length = 0;
    }
    if (data.length > 0) {
      if (ready) {
        yield { bytes: ready, last: false };
        ready = undefined;
      }
      pending.push(data);
      length += data.length;
    }
  }
  if (ready && length === 0) {
    yield { bytes: ready, last: true };
    return;
  }
  if (ready) yield { bytes: ready, last: false };
  yield { bytes: Buffer.concat(pending), last: true };
}
