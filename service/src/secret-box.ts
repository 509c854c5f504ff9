import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Db, Tx } from './adapters/db/index.ts';
import { installSecret, readSetting } from './settings.ts';

/** The install secret (settings table) that seals secrets when `SECRET_ENCRYPTION_KEY` is unset. */
const settingsKeyName = 'secretEncryptionKey';
/** Every sealed value starts with it; what follows names the key (`sdbox:v1:<key id>:…`). */
export const sealedPrefix = 'sdbox:v1:';
/** How values sealed under the settings key were written before they carried a key id. */
const legacyFormat = /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/;

/** `SECRET_ENCRYPTION_KEY` and, while rotating, `SECRET_ENCRYPTION_KEY_PREVIOUS` (32 bytes each). */
export interface SecretKeys {
  current: Buffer;
  previous?: Buffer;
}

/** A stored value sealed under a key this process was not given. */
export class SecretKeyMismatch extends Error {}

/**
 * A key's public name inside sealed values: tells which key sealed a value (so start-up finds
 * values to re-seal without trying to open each) and reveals nothing of the key.
 */
export const keyIdOf = (key: Buffer) =>
  createHash('sha256').update('stepdeck secret key id\0').update(key).digest('hex').slice(0, 16);

const boxes = new WeakMap<Db, SecretBox>();

/**
 * Seals the secrets the install stores (project and environment secrets, an SMTP relay's
 * password, identity providers' client secrets, SSO ID tokens) with AES-256-GCM, so a table,
 * a backup or a log line never holds one in clear. The key is `SECRET_ENCRYPTION_KEY`, kept
 * outside the database; without it, a random key in the `settings` table (a fresh install works
 * with no setting, at the price of the key sitting beside what it protects).
 *
 * Stored as `sdbox:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64 parts). Values sealed under
 * `SECRET_ENCRYPTION_KEY_PREVIOUS` or the settings key still open, until start-up re-seals them
 * (secret-sweep.ts).
 */
export class SecretBox {
  private readonly key: Buffer;
  readonly keyId: string;
  /** `SECRET_ENCRYPTION_KEY` is set: the key is not in the database. */
  readonly external: boolean;
  /** Keys values may still be sealed under, by key id. */
  private readonly older: Map<string, Buffer>;
  private readonly legacyKey: Buffer | undefined;

  private constructor(key: Buffer, external: boolean, older: Buffer[], legacyKey: Buffer | undefined) {
    this.key = key;
    this.keyId = keyIdOf(key);
    this.external = external;
    this.older = new Map(older.map((other) => [keyIdOf(other), other]));
    this.older.delete(this.keyId);
    this.legacyKey = legacyKey;
  }

  /**
   * The install's box for this database, opened once by the app (buildApp) and found from the
   * database by the code that seals or opens.
   */
  static async forInstall(db: Db, keys: SecretKeys | undefined): Promise<SecretBox> {
    let box: SecretBox;
    if (keys) {
      // The settings key is only read, never created: values sealed under it before the
      // setting was given still open, and start-up re-seals them.
      const stored = await readSetting(db, settingsKeyName);
      const settingsKey = stored === null ? undefined : Buffer.from(stored, 'base64');
      const older = [keys.previous, settingsKey].filter((key): key is Buffer => key !== undefined);
      box = new SecretBox(keys.current, true, older, settingsKey);
    } else {
      const key = await installSecret(db, settingsKeyName);
      box = new SecretBox(key, false, [], key);
    }
    boxes.set(db, box);
    return box;
  }

  /** The box the app opened for this database. */
  static async open(db: Db): Promise<SecretBox> {
    const box = boxes.get(db);
    if (!box) throw new Error('the secret box of this database is not open: buildApp opens it');
    return box;
  }

  /** How every value sealed under the current key starts. */
  get currentPrefix(): string {
    return `${sealedPrefix}${this.keyId}:`;
  }

  /** Sealed at all (under any key), as opposed to a value stored in clear. */
  static isSealed(stored: string): boolean {
    return stored.startsWith(sealedPrefix) || legacyFormat.test(stored);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${sealedPrefix}${this.keyId}:${[iv, tag, sealed].map((part) => part.toString('base64')).join(':')}`;
  }

  /**
   * The plain text. Throws SecretKeyMismatch when the value was sealed under a key this process
   * was not given, an Error when it is not a sealed value or was altered.
   */
  open(stored: string): string {
    if (stored.startsWith(sealedPrefix)) {
      const [keyId = '', iv, tag, sealed] = stored.slice(sealedPrefix.length).split(':');
      const key = keyId === this.keyId ? this.key : this.older.get(keyId);
      if (!key)
        throw new SecretKeyMismatch(
          `a stored secret is sealed under key ${keyId}, not SECRET_ENCRYPTION_KEY's (${this.keyId}${this.older.size > 0 ? ` or ${[...this.older.keys()].join(', ')}` : ''}): set SECRET_ENCRYPTION_KEY to the key it was sealed with, or give that key as SECRET_ENCRYPTION_KEY_PREVIOUS to re-seal under the new one`,
        );
      return decrypt(key, iv, tag, sealed);
    }
    if (legacyFormat.test(stored)) {
      const [, iv, tag, sealed] = stored.split(':');
      if (!this.legacyKey)
        throw new SecretKeyMismatch(
          'a stored secret is sealed under the key the database held, which is gone: restore the settings table, or set SECRET_ENCRYPTION_KEY to the key it was sealed with',
        );
      return decrypt(this.legacyKey, iv, tag, sealed);
    }
    throw new Error('stored secret is not in the sealed format');
  }

  /** A stored value that may predate sealing (project and environment secrets): opened, or as it is. */
  openOrPlain(stored: string): string {
    return stored.startsWith(sealedPrefix) ? this.open(stored) : stored;
  }
}

function decrypt(key: Buffer, iv: string | undefined, tag: string | undefined, sealed: string | undefined) {
  if (!iv || !tag || sealed === undefined) throw new Error('stored secret is not in the sealed format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * A column a module stores sealed values in, as start-up's sweep (secret-sweep.ts) walks it:
 * the values not yet sealed under the current key, and the write-back of one re-sealed.
 */
export interface SealedColumn {
  /** What the values are, in the message when one does not open. */
  label: string;
  /** Values stored before secrets were sealed may be plain text (sealed as they are). */
  mayBePlain: boolean;
  /** The table holding them: rewritten once on PostgreSQL after plain values were sealed. */
  table: 'projectSecrets' | 'environmentSecrets' | 'installSettings' | 'ssoProviders' | 'ssoSessions';
  /** Up to `limit` values that do not start with `currentPrefix`, with their row's key. */
  pending(
    db: Db,
    currentPrefix: string,
    limit: number,
  ): Promise<Array<{ row: Record<string, string>; value: string }>>;
  /** Writes `to` where the row still holds `from` (a concurrent write wins). */
  replace(tx: Tx, row: Record<string, string>, from: string, to: string): Promise<void>;
}
