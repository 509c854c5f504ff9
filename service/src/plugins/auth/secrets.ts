import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
) => Promise<Buffer>;

/** `sd_` + 48 hex characters: 51 in all, as the spec fixes. */
export const newApiKey = (): string => `sd_${randomBytes(24).toString('hex')}`;
export const apiKeyPattern = /^sd_[0-9a-f]{48}$/;
export const apiKeyPrefix = (key: string): string => key.slice(0, 8);

/**
 * API keys and session tokens carry 192 bits of randomness, so one SHA-256 is enough to
 * store them safely and keeps the per-request lookup cheap. Passwords get scrypt.
 */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const newSessionToken = (): string => randomBytes(32).toString('base64url');

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(expected, actual);
}

export const newPassword = (): string => randomBytes(12).toString('base64url');
