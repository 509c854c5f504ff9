import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type BlobStore } from './index.ts';

/**
 * Blobs as files under DATA_DIR/blobs. Presigned URLs point at the service's own
 * `/blobs/...` route and carry an expiry and an HMAC over key and expiry.
 */
export class FileBlobStore implements BlobStore {
  readonly root: string;
  private readonly signingKey: Buffer;
  private readonly publicUrl: string;

  constructor(options: { root: string; signingKey: Buffer; publicUrl: string }) {
    this.root = options.root;
    this.signingKey = options.signingKey;
    this.publicUrl = options.publicUrl;
    // Artifacts may hold what tests saw: owner only, also for a folder created before.
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.root, 0o700);
  }

  private pathOf(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Buffer | Readable): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    // Unique per write: two writes of one key may overlap; the last rename wins, whole.
    const temporary = `${target}.${randomUUID()}.part`;
    try {
      if (Buffer.isBuffer(body)) await fsp.writeFile(temporary, body);
      else await pipeline(body, fs.createWriteStream(temporary));
      await fsp.rename(temporary, target);
    } catch (error) {
      // A failed write leaves nothing behind, not even a part file: no half blob counts against the caps.
      await fsp.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async stream(key: string): Promise<Readable | undefined> {
    const file = this.pathOf(key);
    return (await this.exists(key)) ? fs.createReadStream(file) : undefined;
  }

  async exists(key: string): Promise<boolean> {
    return (await this.size(key)) !== undefined;
  }

  async size(key: string): Promise<number | undefined> {
    try {
      const stat = await fsp.stat(this.pathOf(key));
      return stat.isFile() ? stat.size : undefined;
    } catch {
      return undefined;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = path.join(this.root, ...prefix.split('/').filter(Boolean));
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (!entry.name.endsWith('.part'))
          found.push(path.relative(this.root, full).split(path.sep).join('/'));
      }
    };
    await walk(base);
    return found.sort();
  }

  async delete(prefix: string): Promise<void> {
    await fsp.rm(path.join(this.root, ...prefix.split('/').filter(Boolean)), {
      recursive: true,
      force: true,
    });
  }

  async presign(key: string, expiresInSeconds: number): Promise<string> {
    assertSafeKey(key);
    const expires = Math.floor(Date.now() / 1000) + expiresInSeconds;
    const signature = this.sign(key, expires);
    const encodedKey = key.split('/').map(encodeURIComponent).join('/');
    return `${this.publicUrl}/blobs/${encodedKey}?expires=${expires}&signature=${signature}`;
  }

  /** True when the signature matches the key and the expiry has not passed. */
  verify(key: string, expires: number, signature: string, nowSeconds = Date.now() / 1000): boolean {
    if (!Number.isFinite(expires) || expires < nowSeconds) return false;
    const expected = Buffer.from(this.sign(key, expires));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private sign(key: string, expires: number): string {
    return createHmac('sha256', this.signingKey).update(`${key}\n${expires}`).digest('hex');
  }
}
