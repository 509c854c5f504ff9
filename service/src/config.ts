import path from 'node:path';
import { defaultMaxStepsPerTest, defaultMaxStepTreeBytes } from '@stepdeck/contract';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { type EgressRule, type EgressSetting, parseEgressRules } from './runner/egress.ts';
import { defaultUidRange } from './runner/isolation.ts';
import { defaultArtifactLimits } from './runner/redact-run.ts';
import { defaultStandbyIdleSeconds } from './runner/standby.ts';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const port = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be an integer`)
    .min(0, `${name} must be between 0 and 65535`)
    .max(65535, `${name} must be between 0 and 65535`)
    .default(fallback);

/** A size in bytes: at least 1 MiB (1048576), at most 1 PiB. */
const byteSize = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number of bytes` })
    .int(`${name} must be an integer (bytes)`)
    .min(1024 * 1024, `${name} must be at least 1048576 (1 MiB)`)
    .max(2 ** 50, `${name} must be at most 1125899906842624 (1 PiB)`)
    .default(fallback);

/** `RUNNER_EGRESS_DENY` / `RUNNER_EGRESS_ALLOW`: comma-separated rules (runner/egress.ts). */
const egressRules = (name: EgressSetting) =>
  optionalString.transform((value, context): EgressRule[] => {
    try {
      return parseEgressRules(value, name);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/**
 * `SECRET_ENCRYPTION_KEY` / `_PREVIOUS`: 32 bytes as 64 hex characters or base64. The message
 * never repeats the value.
 */
const secretKey = (name: string) =>
  optionalString.transform((value, context): Buffer | undefined => {
    if (value === undefined) return undefined;
    const key = /^[0-9a-fA-F]{64}$/.test(value)
      ? Buffer.from(value, 'hex')
      : /^[A-Za-z0-9+/_-]+={0,2}$/.test(value)
        ? Buffer.from(value, 'base64')
        : undefined;
    if (key?.length !== 32) {
      context.addIssue({
        code: 'custom',
        message: `${name} must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)`,
      });
      return z.NEVER;
    }
    return key;
  });

const envSchema = z.object({
  PORT: port('PORT', 8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_URL: optionalString.pipe(
    z.url({ protocol: /^https?$/, error: 'PUBLIC_URL must be an absolute http(s) URL' }).optional(),
  ),
  DATABASE_URL: optionalString.refine(
    (value) => value === undefined || /^postgres(ql)?:\/\//.test(value),
    'DATABASE_URL must start with postgres:// or postgresql://',
  ),
  ADMIN_PASSWORD: optionalString.refine(
    (value) => value === undefined || value.length >= 8,
    'ADMIN_PASSWORD must be at least 8 characters',
  ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(300),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(25 * 1024 * 1024),
  NODE_ENV: optionalString,
  S3_BUCKET: optionalString,
  S3_ENDPOINT: optionalString,
  S3_REGION: optionalString,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  WEBHOOK_ALLOWED_TARGETS: optionalString,
  SMTP_PORT: port('SMTP_PORT', 2525),
  INBOX_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/,
      'INBOX_DOMAIN must be a domain name',
    )
    .default('inbox.localhost'),
  RUNNER_STALE_HEARTBEAT_MS: z.coerce
    .number({ error: 'RUNNER_STALE_HEARTBEAT_MS must be a number' })
    .int('RUNNER_STALE_HEARTBEAT_MS must be an integer')
    .min(2000, 'RUNNER_STALE_HEARTBEAT_MS must be at least 2000')
    .default(15_000),
  SHUTDOWN_GRACE_MS: z.coerce
    .number({ error: 'SHUTDOWN_GRACE_MS must be a number' })
    .int('SHUTDOWN_GRACE_MS must be an integer')
    .min(0, 'SHUTDOWN_GRACE_MS must be at least 0')
    .default(30_000),
  TRUSTED_PROXIES: optionalString,
  ORG_DELETE_GRACE_DAYS: z.coerce
    .number({ error: 'ORG_DELETE_GRACE_DAYS must be a number' })
    .int('ORG_DELETE_GRACE_DAYS must be an integer')
    .min(0, 'ORG_DELETE_GRACE_DAYS must be at least 0')
    .max(365, 'ORG_DELETE_GRACE_DAYS must be at most 365')
    .default(30),
  RUNNER_SLOTS: z.coerce
    .number({ error: 'RUNNER_SLOTS must be a number' })
    .int('RUNNER_SLOTS must be an integer')
    .min(1, 'RUNNER_SLOTS must be at least 1')
    .max(64, 'RUNNER_SLOTS must be at most 64')
    .optional(),
  RUNNER_STANDBY_IDLE_SECONDS: z.coerce
    .number({ error: 'RUNNER_STANDBY_IDLE_SECONDS must be a number' })
    .int('RUNNER_STANDBY_IDLE_SECONDS must be an integer')
    .min(0, 'RUNNER_STANDBY_IDLE_SECONDS must be at least 0')
    .max(604_800, 'RUNNER_STANDBY_IDLE_SECONDS must be at most 604800 (a week)')
    .default(defaultStandbyIdleSeconds),
  METRICS_TOKEN: optionalString,
  LIVE_SESSIONS_MAX: z.coerce
    .number({ error: 'LIVE_SESSIONS_MAX must be a number' })
    .int('LIVE_SESSIONS_MAX must be an integer')
    .min(0, 'LIVE_SESSIONS_MAX must be at least 0')
    .max(64, 'LIVE_SESSIONS_MAX must be at most 64')
    .default(4),
  LIVE_SESSION_IDLE_SECONDS: z.coerce
    .number({ error: 'LIVE_SESSION_IDLE_SECONDS must be a number' })
    .int('LIVE_SESSION_IDLE_SECONDS must be an integer')
    .min(1, 'LIVE_SESSION_IDLE_SECONDS must be at least 1')
    .max(3600, 'LIVE_SESSION_IDLE_SECONDS must be at most 3600')
    .default(600),
  RUNNER_EGRESS_DENY: egressRules('RUNNER_EGRESS_DENY'),
  RUNNER_EGRESS_ALLOW: egressRules('RUNNER_EGRESS_ALLOW'),
  RUN_ARTIFACTS_MAX_BYTES: byteSize('RUN_ARTIFACTS_MAX_BYTES', defaultArtifactLimits.runMaxBytes),
  ARTIFACT_ENTRY_MAX_BYTES: byteSize('ARTIFACT_ENTRY_MAX_BYTES', defaultArtifactLimits.entryMaxBytes),
  ORG_ARTIFACTS_MAX_BYTES: byteSize('ORG_ARTIFACTS_MAX_BYTES', defaultArtifactLimits.orgMaxBytes),
  RUNNER_ISOLATION: z.enum(['on', 'off'], { error: 'RUNNER_ISOLATION must be on or off' }).default('on'),
  RUNNER_UID_RANGE: z
    .string()
    .trim()
    .default(`${defaultUidRange[0]}-${defaultUidRange[1]}`)
    .transform((value, context) => {
      const match = /^(\d{1,10})-(\d{1,10})$/.exec(value);
      const first = Number(match?.[1] ?? Number.NaN);
      const last = Number(match?.[2] ?? Number.NaN);
      if (!(first >= 1000 && first <= last && last <= 4_294_967_294)) {
        context.addIssue({
          code: 'custom',
          message:
            'RUNNER_UID_RANGE must be two uids, first-last, from 1000 to 4294967294 (e.g. 2000000000-2000009999)',
        });
        return z.NEVER;
      }
      return [first, last] as [number, number];
    }),
  AUDIT_RETENTION_DAYS: z.coerce
    .number({ error: 'AUDIT_RETENTION_DAYS must be a number' })
    .int('AUDIT_RETENTION_DAYS must be an integer')
    .min(1, 'AUDIT_RETENTION_DAYS must be at least 1')
    .default(365),
  HISTORY_RETENTION_DAYS: z.coerce
    .number({ error: 'HISTORY_RETENTION_DAYS must be a number' })
    .int('HISTORY_RETENTION_DAYS must be an integer')
    .min(1, 'HISTORY_RETENTION_DAYS must be at least 1')
    .default(180),
  QUARANTINE_FLAKE_RATE: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.coerce
      .number({ error: 'QUARANTINE_FLAKE_RATE must be a number' })
      .gt(0, 'QUARANTINE_FLAKE_RATE must be above 0')
      .max(1, 'QUARANTINE_FLAKE_RATE must be at most 1')
      .optional(),
  ),
  QUARANTINE_MIN_RESULTS: z.coerce
    .number({ error: 'QUARANTINE_MIN_RESULTS must be a number' })
    .int('QUARANTINE_MIN_RESULTS must be an integer')
    .min(2, 'QUARANTINE_MIN_RESULTS must be at least 2')
    .max(20, 'QUARANTINE_MIN_RESULTS must be at most 20')
    .default(10),
  QUARANTINE_RELEASE_PASS_RATE: z.coerce
    .number({ error: 'QUARANTINE_RELEASE_PASS_RATE must be a number' })
    .gt(0, 'QUARANTINE_RELEASE_PASS_RATE must be above 0')
    .lt(1, 'QUARANTINE_RELEASE_PASS_RATE must be below 1')
    .default(0.8),
  SECRET_ENCRYPTION_KEY: secretKey('SECRET_ENCRYPTION_KEY'),
  SECRET_ENCRYPTION_KEY_PREVIOUS: secretKey('SECRET_ENCRYPTION_KEY_PREVIOUS'),
  MAX_STEPS_PER_TEST: z.coerce
    .number({ error: 'MAX_STEPS_PER_TEST must be a number' })
    .int('MAX_STEPS_PER_TEST must be an integer')
    .min(1, 'MAX_STEPS_PER_TEST must be at least 1')
    .default(defaultMaxStepsPerTest),
  MAX_STEP_TREE_BYTES: z.coerce
    .number({ error: 'MAX_STEP_TREE_BYTES must be a number' })
    .int('MAX_STEP_TREE_BYTES must be an integer')
    .min(1024, 'MAX_STEP_TREE_BYTES must be at least 1024')
    .default(defaultMaxStepTreeBytes),
});

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  adminPassword: string | undefined;
  logLevel: string;
  rateLimitPerMinute: number;
  bodyLimitBytes: number;
  production: boolean;
  /** S3-compatible blob storage (S3_*); the file backend under DATA_DIR when absent. */
  s3?: { bucket: string; endpoint?: string; region?: string; accessKeyId?: string; secretAccessKey?: string };
  /** IPs/CIDRs exempt from the webhook private-range rule (tests on loopback); never in production. */
  webhookAllowedTargets: string[];
  /** SMTP listener for email inboxes (on `host`); 0 picks a free port. */
  smtpPort: number;
  /** Domain of generated inbox addresses; mail for other domains is refused. */
  inboxDomain: string;
  /** A run whose runner has not sent a heartbeat for this long is failed (dead worker). */
  runnerStaleHeartbeatMs?: number;
  /** Batches this process's runner executes at once (`RUNNER_SLOTS`, default 4). */
  runnerSlots?: number;
  /**
   * `TRUSTED_PROXIES`: the proxies (IPs, CIDRs, or `loopback`/`linklocal`/`uniquelocal`) whose
   * `X-Forwarded-For` names the client; empty: the socket's address is the client's.
   */
  trustedProxies?: string[];
  /** An organization an install admin deleted is purged this many days later (`ORG_DELETE_GRACE_DAYS`, 30). */
  organizationDeleteGraceDays?: number;
  /**
   * How long a standby runner (runner/standby.ts) waits unused before it exits
   * (`RUNNER_STANDBY_IDLE_SECONDS`, default 300); 0 keeps none.
   */
  runnerStandbyIdleMs?: number;
  /**
   * Live browser sessions of the console (modules/live-sessions): at most `max` at once on this
   * process (`LIVE_SESSIONS_MAX`, default 4), one per user, each closed after `idleMs` without
   * input (`LIVE_SESSION_IDLE_SECONDS`, 600) and after `maxMs` (60 minutes) whatever happens.
   */
  liveSessions?: { max: number; idleMs: number; maxMs: number };
  /** On SIGTERM/SIGINT, how long running runs may still finish before they are failed. */
  shutdownGraceMs: number;
  /** Bearer token GET /metrics requires; open when unset. */
  metricsToken: string | undefined;
  /**
   * What runs may reach besides the defaults (runner/egress.ts): `RUNNER_EGRESS_DENY` adds deny
   * rules, `RUNNER_EGRESS_ALLOW` allow rules, which win over every deny rule.
   */
  runnerEgress?: { deny: EgressRule[]; allow: EgressRule[] };
  /**
   * Caps on stored run artifacts (runner/redact-run.ts): `ARTIFACT_ENTRY_MAX_BYTES` per file or
   * zip entry (default 64 MiB), `RUN_ARTIFACTS_MAX_BYTES` per run (512 MiB) and
   * `ORG_ARTIFACTS_MAX_BYTES` per organization, over its runs' stored artifacts (10 GiB).
   */
  artifactLimits?: { entryMaxBytes: number; runMaxBytes: number; orgMaxBytes: number };
  /**
   * `RUNNER_ISOLATION` (default on): runs under uids of their own (`RUNNER_UID_RANGE`) when
   * the service is root, with Chromium's sandbox (runner/isolation.ts).
   */
  runnerIsolation?: { isolation: 'on' | 'off'; uidRange: [number, number] };
  /** Audit log entries older than this many days are deleted (default 365). */
  auditRetentionDays?: number;
  /** Per-test results (modules/history) older than this many days are deleted (default 180). */
  historyRetentionDays?: number;
  /**
   * `QUARANTINE_FLAKE_RATE` (off when unset): a test whose flake rate over its latest results
   * reaches it is put in quarantine by itself; `QUARANTINE_RELEASE_PASS_RATE` (0.8): a
   * quarantined test leaves once the Wilson lower bound of its pass rate since reaches it;
   * `QUARANTINE_MIN_RESULTS` (10): fewest latest results a flake rate is judged on.
   */
  quarantine?: { autoAt: number | undefined; minResults: number; releaseAt: number };
  /**
   * Steps one test's tree may hold, every node with shared steps expanded (`MAX_STEPS_PER_TEST`,
   * default 2000); writes past it are refused (modules/step-trees/step-limits.ts).
   */
  maxStepsPerTest?: number;
  /** UTF-8 bytes one test's stored steps may take (`MAX_STEP_TREE_BYTES`, default 1 MiB). */
  maxStepTreeBytes?: number;
  /**
   * `SECRET_ENCRYPTION_KEY` (and `SECRET_ENCRYPTION_KEY_PREVIOUS` while rotating): the key that
   * seals stored secrets (secret-box.ts); unset: a random key kept in the database.
   */
  secretKeys?: { current: Buffer; previous?: Buffer };
};

/** Batches a runner executes at once when `RUNNER_SLOTS` is unset. */
export const defaultRunnerSlots = 4;

export class ConfigError extends Error {}

/** A start-up problem the operator fixes by changing a setting: printed as one line, exit 1. */
export class StartupError extends Error {}

/** Reads and validates the environment; a bad value fails start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const value = parsed.data;
  const webhookAllowedTargets = parseAllowedTargets(value.WEBHOOK_ALLOWED_TARGETS);
  if (webhookAllowedTargets.length > 0 && value.NODE_ENV === 'production') {
    throw new ConfigError(
      'Invalid configuration:\n  WEBHOOK_ALLOWED_TARGETS: must be empty when NODE_ENV=production',
    );
  }
  if (value.SECRET_ENCRYPTION_KEY_PREVIOUS && !value.SECRET_ENCRYPTION_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  SECRET_ENCRYPTION_KEY_PREVIOUS: is only read with SECRET_ENCRYPTION_KEY set (the key to re-seal under)',
    );
  }
  const trustedProxies = parseAddressList(value.TRUSTED_PROXIES, 'TRUSTED_PROXIES', proxyNames);
  const hostForUrl = value.HOST.includes(':') ? `[${value.HOST}]` : value.HOST;
  return {
    port: value.PORT,
    host: value.HOST,
    // Relative to where the user ran the command: npm runs workspace scripts inside service/.
    dataDir: path.resolve(env.INIT_CWD ?? process.cwd(), value.DATA_DIR),
    publicUrl: (value.PUBLIC_URL ?? `http://${hostForUrl}:${value.PORT}`).replace(/\/+$/, ''),
    databaseUrl: value.DATABASE_URL,
    adminPassword: value.ADMIN_PASSWORD,
    logLevel: value.LOG_LEVEL,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: value.BODY_LIMIT_BYTES,
    production: value.NODE_ENV === 'production',
    s3: value.S3_BUCKET
      ? {
          bucket: value.S3_BUCKET,
          endpoint: value.S3_ENDPOINT,
          region: value.S3_REGION,
          accessKeyId: value.S3_ACCESS_KEY_ID,
          secretAccessKey: value.S3_SECRET_ACCESS_KEY,
        }
      : undefined,
    webhookAllowedTargets,
    smtpPort: value.SMTP_PORT,
    inboxDomain: value.INBOX_DOMAIN,
    runnerStaleHeartbeatMs: value.RUNNER_STALE_HEARTBEAT_MS,
    runnerSlots: value.RUNNER_SLOTS,
    trustedProxies,
    organizationDeleteGraceDays: value.ORG_DELETE_GRACE_DAYS,
    runnerStandbyIdleMs: value.RUNNER_STANDBY_IDLE_SECONDS * 1000,
    liveSessions: {
      max: value.LIVE_SESSIONS_MAX,
      idleMs: value.LIVE_SESSION_IDLE_SECONDS * 1000,
      maxMs: 60 * 60 * 1000,
    },
    shutdownGraceMs: value.SHUTDOWN_GRACE_MS,
    metricsToken: value.METRICS_TOKEN,
    runnerEgress: { deny: value.RUNNER_EGRESS_DENY, allow: value.RUNNER_EGRESS_ALLOW },
    artifactLimits: {
      entryMaxBytes: value.ARTIFACT_ENTRY_MAX_BYTES,
      runMaxBytes: value.RUN_ARTIFACTS_MAX_BYTES,
      orgMaxBytes: value.ORG_ARTIFACTS_MAX_BYTES,
    },
    runnerIsolation: { isolation: value.RUNNER_ISOLATION, uidRange: value.RUNNER_UID_RANGE },
    auditRetentionDays: value.AUDIT_RETENTION_DAYS,
    historyRetentionDays: value.HISTORY_RETENTION_DAYS,
    quarantine: {
      autoAt: value.QUARANTINE_FLAKE_RATE,
      minResults: value.QUARANTINE_MIN_RESULTS,
      releaseAt: value.QUARANTINE_RELEASE_PASS_RATE,
    },
    maxStepsPerTest: value.MAX_STEPS_PER_TEST,
    maxStepTreeBytes: value.MAX_STEP_TREE_BYTES,
    secretKeys: value.SECRET_ENCRYPTION_KEY
      ? {
          current: value.SECRET_ENCRYPTION_KEY,
          ...(value.SECRET_ENCRYPTION_KEY_PREVIOUS ? { previous: value.SECRET_ENCRYPTION_KEY_PREVIOUS } : {}),
        }
      : undefined,
  };
}

/** The ranges proxy-addr (Fastify's `trustProxy`) knows by name. */
const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `WEBHOOK_ALLOWED_TARGETS`: comma-separated IPs or CIDRs, each normalised to CIDR form. */
function parseAllowedTargets(raw: string | undefined): string[] {
  return parseAddressList(raw, 'WEBHOOK_ALLOWED_TARGETS', new Set());
}

/** Comma-separated IPs or CIDRs (or one of `names`), each normalised to CIDR form. */
function parseAddressList(raw: string | undefined, setting: string, names: ReadonlySet<string>): string[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      if (names.has(entry)) return entry;
      const cidr = addressToCidr(entry);
      if (cidr === undefined)
        throw new ConfigError(
          `Invalid configuration:\n  ${setting}: ${entry} is not an IP address or CIDR range`,
        );
      return cidr;
    });
}

/**
 * An IP address or CIDR range in normal CIDR form (`127.0.0.1` → `127.0.0.1/32`); undefined
 * when it is neither. The parser of `WEBHOOK_ALLOWED_TARGETS` and of the install's allow-list.
 */
export function addressToCidr(entry: string): string | undefined {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return `${address.toString()}/${bits}`;
    }
    const address = ipaddr.parse(entry);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return undefined;
  }
}

/** A listener that could not bind, as the one line naming the setting to change. */
export function listenError(error: unknown, setting: string, host: string, port: number): Error {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return new StartupError(
      `${setting} ${port} is already in use on ${host}: stop the other process or set ${setting} to a free port`,
    );
  if (code === 'EACCES')
    return new StartupError(
      `${setting} ${port} on ${host} needs privileges this process lacks: set ${setting} to a port above 1023`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new StartupError(`HOST ${host} is not an address of this machine (${setting} ${port}): set HOST`);
  return error instanceof Error ? error : new Error(String(error));
}
