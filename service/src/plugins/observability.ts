import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import { appError } from '../errors.ts';
import { describeBrowser } from '../runner/browser.ts';
import { isolationStatus } from '../runner/isolation.ts';

/** A readiness check that has not answered within this long counts as failed. */
export const readinessTimeoutMs = 3_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Operations endpoints: `/healthz` (liveness: the process answers), `/readyz` (readiness:
 * the database, the blob store and, with PostgreSQL, the job queue answer; 503 naming the
 * failing part otherwise) and `/metrics` (Prometheus text; bearer METRICS_TOKEN when set).
 * Every answered request is counted under its route template, never its raw URL.
 */
export const observabilityPlugin = fp(
  async (app: FastifyInstance, { ctx }: { ctx: AppContext }) => {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      ctx.metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    });

    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    let browserDescription: Promise<{ line: string }> | undefined;
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const checks: Array<[string, () => Promise<unknown>]> = [
        ['database', () => sql`select 1`.execute(ctx.db)],
        ['blob store', () => ctx.blobs.exists('readyz/probe')],
      ];
      if (ctx.queue.kind === 'pg-boss') checks.push(['queue', async () => (await ctx.queue.open()).ping()]);
      const results = await Promise.all(
        checks.map(async ([name, check]) => {
          try {
            await withTimeout(check(), readinessTimeoutMs);
            return { name, ok: true as const };
          } catch (error) {
            return {
              name,
              ok: false as const,
              error: error instanceof Error ? error.message : String(error),
            };
          }
        }),
      );
      const failing = results.filter((result) => !result.ok);
      const components = Object.fromEntries(
        results.map((result) => [result.name, result.ok ? 'ok' : 'failing']),
      );
      // Resolved once per process (a first resolution may unpack the npm Chromium).
      browserDescription ??= describeBrowser().catch((error: unknown) => ({
        line: error instanceof Error ? error.message : String(error),
      }));
      const browser = (await browserDescription).line;
      // How runs are kept apart here (runner/isolation.ts): what an operator checks first
      // when RUNNER_ISOLATION is off or the service is not root.
      const { mode, sandbox, warning } = isolationStatus();
      const isolation = { mode, sandbox, ...(warning ? { warning } : {}) };
      if (failing.length > 0) {
        ctx.log.warn({ failing: failing.map((f) => ({ part: f.name, error: f.error })) }, 'not ready');
        return reply.code(503).send({
          status: 'unavailable',
          message: `Not ready: ${failing.map((f) => f.name).join(', ')} not answering`,
          components,
          ...(browser ? { browser } : {}),
          isolation,
        });
      }
      return { status: 'ready', components, ...(browser ? { browser } : {}), isolation };
    });

    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      const token = ctx.config.metricsToken;
      if (token) {
        const header = request.headers.authorization ?? '';
        const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
        if (!sameToken(given, token)) {
          throw appError('METRICS_TOKEN_REQUIRED').with({
            headers: { 'www-authenticate': 'Bearer realm="metrics"' },
          });
        }
      }
      const body = await ctx.metrics.registry.metrics();
      return reply.type(ctx.metrics.registry.contentType).send(body);
    });
  },
  { name: 'observability' },
);
