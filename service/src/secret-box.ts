import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db } from './adapters/db/index.ts';
import { installSecret } from './settings.ts';

/** The install secret (settings table) that encrypts stored credentials. */
const keyName = 'secretEncryptionKey';
const version = 'v1';

/**
 * Encrypts credentials the install stores for itself (an SMTP relay's password, an identity
 * provider's client secret) with AES-256-GCM under an install-wide random key, so they never
 * sit in a table, an export or a log line as plain text. Stored as `v1:<iv>:<tag>:<ciphertext>`
 * (base64 parts); the key is created on first use and shared by every instance.
 */
export class SecretBox {
  private readonly key: Buffer;

  private constructor(key: Buffer) {
    this.key = key;
  }

  static async open(db: Db): Promise<SecretBox> {
    return new SecretBox(await installSecret(db, keyName));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [version, iv.toString('base64'), tag.toString('base64'), sealed.toString('base64')].join(':');
  }

  /** The plain text; throws when the value was not sealed with this install's key. */
  open(stored: string): string {
    const [tagVersion, iv, tag, sealed] = stored.split(':');
    if (tagVersion !== version || !iv || !tag || sealed === undefined) {
      throw new Error('stored secret is not in the sealed format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  }
}
