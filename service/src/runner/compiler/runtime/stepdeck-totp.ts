/**
 * TOTP codes (RFC 6238) for `totp` steps, copied beside `stepdeck-runtime.ts` into a project
 * whose tests use them; `otpauth` is then one of the project's dependencies. No message here
 * ever holds the secret: it is a key to a login.
 */
import { Secret, TOTP, URI } from 'otpauth';

export interface TotpOptions {
  digits?: number;
  period?: number;
  algorithm?: 'SHA1' | 'SHA256' | 'SHA512';
}

/**
 * The code for `secret` (an `otpauth://totp/…` URI, whose parameters rule, or a base32 key, with
 * `options` or the usual 6 digits, 30 s, SHA1) at `now` (ms since the epoch).
 */
export function totpCode(secret: string, options: TotpOptions = {}, now: number = Date.now()): string {
  const value = secret.trim();
  if (/^otpauth:/i.test(value)) {
    const given = (['digits', 'period', 'algorithm'] as const).filter((key) => options[key] !== undefined);
    if (given.length > 0)
      throw new Error(
        `totp: ${given.join(', ')} come${given.length === 1 ? 's' : ''} from the otpauth:// URI in the secret; leave ${given.length === 1 ? 'it' : 'them'} out of the step`,
      );
    let parsed: ReturnType<typeof URI.parse>;
    try {
      parsed = URI.parse(value);
    } catch {
      throw new Error('totp: the secret is not a valid otpauth:// URI (it needs a base32 secret parameter)');
    }
    if (!(parsed instanceof TOTP))
      throw new Error(
        'totp: the secret is an otpauth://hotp/ URI; only time-based (totp) codes are supported',
      );
    return parsed.generate({ timestamp: now });
  }
  const key = value.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z2-7]+=*$/.test(key))
    throw new Error('totp: the secret is neither an otpauth://totp/ URI nor a base32 key');
  return new TOTP({
    secret: Secret.fromBase32(key),
    digits: options.digits ?? 6,
    period: options.period ?? 30,
    algorithm: options.algorithm ?? 'SHA1',
  }).generate({ timestamp: now });
}
