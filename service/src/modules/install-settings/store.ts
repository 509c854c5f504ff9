import { z } from 'zod';
import type { Db } from '../../adapters/db/index.ts';
import type { EgressRule } from '../../runner/egress.ts';
import { parseEgressRules } from '../../runner/egress.ts';
import { SecretBox } from '../../secret-box.ts';
import { settingRows } from './repository.ts';

/** The stored shape of each setting group (JSON in `installSettings.value`). */
export const storedAllowedTargets = z.array(z.string());
export const storedEgress = z.object({ deny: z.array(z.string()), allow: z.array(z.string()) });
export const storedSmtpRelay = z.object({
  host: z.string(),
  port: z.number().int(),
  security: z.enum(['tls', 'starttls', 'none']),
  user: z.string().nullable(),
  /** Sealed with the install's secret box; null: no password. */
  passwordSealed: z.string().nullable(),
  from: z.string(),
});
export type StoredSmtpRelay = z.infer<typeof storedSmtpRelay>;

export interface StoredSettings {
  webhookAllowedTargets: string[];
  runnerEgress: { deny: string[]; allow: string[] };
  smtpRelay: StoredSmtpRelay | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

/** The settings as stored; a row that does not parse counts as unset (and is logged by the caller). */
export async function readStored(db: Db): Promise<StoredSettings> {
  const rows = await settingRows(db);
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const parse = <T>(key: string, schema: z.ZodType<T>): T | undefined => {
    const row = byKey.get(key);
    if (!row) return undefined;
    const parsed = schema.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : undefined;
  };
  const latest = rows.reduce<(typeof rows)[number] | undefined>(
    (found, row) => (!found || row.updatedAt > found.updatedAt ? row : found),
    undefined,
  );
  return {
    webhookAllowedTargets: parse('webhookAllowedTargets', storedAllowedTargets) ?? [],
    runnerEgress: parse('runnerEgress', storedEgress) ?? { deny: [], allow: [] },
    smtpRelay: parse('smtpRelay', storedSmtpRelay.nullable()) ?? null,
    updatedAt: latest?.updatedAt ?? null,
    updatedBy: latest?.updatedBy ?? null,
  };
}

/** The SMTP relay with its password opened, for the one place that connects to it. */
export interface SmtpRelay {
  host: string;
  port: number;
  security: 'tls' | 'starttls' | 'none';
  user: string | null;
  password: string | null;
  from: string;
}

/** What the install's settings add to the environment's, in the form their users need. */
export interface EffectiveInstallSettings {
  /** Normalised CIDRs: the install admins' list (the environment's list is the caller's). */
  webhookAllowedTargets: string[];
  runnerEgress: { deny: EgressRule[]; allow: EgressRule[] };
  smtpRelay: SmtpRelay | null;
}

const cacheMs = 5_000;
const cache = new WeakMap<Db, { at: number; value: Promise<EffectiveInstallSettings> }>();

/**
 * The install settings in effect, read at most every 5 seconds per database (another instance's
 * change is seen within that); a change made here is seen at once ({@link forgetEffective}).
 */
export function effectiveInstallSettings(db: Db): Promise<EffectiveInstallSettings> {
  const cached = cache.get(db);
  if (cached && Date.now() - cached.at < cacheMs) return cached.value;
  const value = loadEffective(db);
  cache.set(db, { at: Date.now(), value });
  value.catch(() => cache.delete(db));
  return value;
}

export function forgetEffective(db: Db): void {
  cache.delete(db);
}

async function loadEffective(db: Db): Promise<EffectiveInstallSettings> {
  const stored = await readStored(db);
  const relay = stored.smtpRelay;
  let password: string | null = null;
  if (relay?.passwordSealed) password = (await SecretBox.open(db)).open(relay.passwordSealed);
  return {
    webhookAllowedTargets: stored.webhookAllowedTargets,
    runnerEgress: {
      deny: parseEgressRules(stored.runnerEgress.deny.join(','), 'install settings runnerEgress.deny').map(
        (rule) => ({ ...rule, source: 'install settings' }),
      ),
      allow: parseEgressRules(stored.runnerEgress.allow.join(','), 'install settings runnerEgress.allow').map(
        (rule) => ({ ...rule, source: 'install settings' }),
      ),
    },
    smtpRelay: relay
      ? {
          host: relay.host,
          port: relay.port,
          security: relay.security,
          user: relay.user,
          password,
          from: relay.from,
        }
      : null,
  };
}
