import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../adapters/db/index.ts';
import { hashToken } from './auth/secrets.ts';

const windowMs = 60_000;

/**
 * 300 requests per minute per API key on every `/v1` route. The embedded default counts in
 * memory; with PostgreSQL the counters live in the `rateLimits` table so every instance
 * shares them (one upsert per request; no extra service to run).
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: { database: DatabaseHandle; max: number },
): Promise<void> {
  const shared = options.database.kind === 'postgres';
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: options.max,
    timeWindow: windowMs,
    // The route Fastify matched, not the raw target: `/%761/tests` and the absolute form
    // `GET http://host/v1/tests` reach the same handler and must count the same.
    allowList: (request: FastifyRequest) => !limitedPath(request).startsWith('/v1/'),
    keyGenerator: (request: FastifyRequest) => {
      const key = request.headers['x-api-key'];
      if (typeof key !== 'string' || key.length === 0) return `ip:${request.ip}`;
      // The shared PostgreSQL table stores keys by hash so a raw key never sits in the
      // database; the in-process store keeps them only in this process's memory.
      return shared ? `key:${hashToken(key)}` : `key:${key}`;
    },
    // Counters are reported on the 429 only: headers on every success cost more than they help.
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    addHeaders: {
      'retry-after': true,
      'x-ratelimit-limit': true,
      'x-ratelimit-remaining': true,
      'x-ratelimit-reset': true,
    },
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      rateLimited: true,
      message: 'Too many requests',
      retryAfter: context.after,
    }),
    ...(options.database.kind === 'postgres'
      ? { store: postgresStoreFor(options.database), skipOnError: false }
      : {}),
  });
}

/**
 * A route's own limit per client address (the proxy-aware `request.ip`: `TRUSTED_PROXIES`), for
 * public routes outside `/v1` that cost the service or a third party something per request.
 * Set as the route's `config.rateLimit`; counted in the same store as the `/v1` limit.
 */
export function perAddressLimit(name: string, maxPerMinute: number) {
  return {
    max: maxPerMinute,
    timeWindow: windowMs,
    allowList: () => false,
    keyGenerator: (request: FastifyRequest) => `${name}:ip:${request.ip}`,
  };
}

/** The matched route's pattern; for an unmatched request, its decoded path. */
function limitedPath(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route) return route;
  let target = request.url;
  try {
    target = new URL(request.url, 'http://localhost').pathname;
    return decodeURIComponent(target);
  } catch {
    return target;
  }
}

type Incr = (error: Error | null, result?: { current: number; ttl: number }) => void;

function postgresStoreFor(database: DatabaseHandle) {
  const { db } = database;
  return class PostgresRateLimitStore {
    incr(key: string, callback: Incr): void {
      // Like the in-memory store, a key's window starts at its first request and lasts a
      // minute; both CASEs read the row as it was before this request.
      const now = Date.now();
      sql<{ hits: number; windowStart: string }>`
        insert into "rateLimits" ("key", "windowStart", "hits") values (${key}, ${now}, 1)
        on conflict ("key") do update set
          "hits" = case when "rateLimits"."windowStart" > excluded."windowStart" - ${windowMs}
            then "rateLimits"."hits" + 1 else 1 end,
          "windowStart" = case when "rateLimits"."windowStart" > excluded."windowStart" - ${windowMs}
            then "rateLimits"."windowStart" else excluded."windowStart" end
        returning "hits", "windowStart"`
        .execute(db)
        .then((result) => {
          const row = result.rows[0];
          const start = Number(row?.windowStart ?? now);
          callback(null, { current: row?.hits ?? 1, ttl: Math.max(0, start + windowMs - now) });
        })
        .catch((error: Error) => callback(error));
    }
    child() {
      return new PostgresRateLimitStore();
    }
  };
}
