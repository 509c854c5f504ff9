import path from 'node:path';
import { z } from 'zod';

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

const envSchema = z.object({
  PORT: port('PORT', 8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_URL: optionalString.pipe(z.url({ error: 'PUBLIC_URL must be an absolute http(s) URL' }).optional()),
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
};

export class ConfigError extends Error {}

/** Reads and validates the environment; a bad value fails start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const value = parsed.data;
  const hostForUrl = value.HOST.includes(':') ? `[${value.HOST}]` : value.HOST;
  return {
    port: value.PORT,
    host: value.HOST,
    dataDir: path.resolve(value.DATA_DIR),
    publicUrl: (value.PUBLIC_URL ?? `http://${hostForUrl}:${value.PORT}`).replace(/\/+$/, ''),
    databaseUrl: value.DATABASE_URL,
    adminPassword: value.ADMIN_PASSWORD,
    logLevel: value.LOG_LEVEL,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: value.BODY_LIMIT_BYTES,
    production: value.NODE_ENV === 'production',
  };
}
