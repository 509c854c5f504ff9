import type SqliteDatabase from 'better-sqlite3';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Db, WriteCounter } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { AppError, badRequest, forbidden, licenseRequired, notFound, unauthorized } from '../../errors.ts';
import { ApiKeyUsage, apiKeyLookup, findSessionUser } from '../../modules/console/public.ts';
import { authenticateConsoleSession, requireCsrfHeader, wantsConsoleSession } from './console-session.ts';
import type { ActiveBranch, ActiveProject, ApiKeyPrincipal, UserPrincipal } from './credentials.ts';
import { guardedPrefixes, type RouteRule, routeRules, ruleKey } from './route-rules.ts';
import { apiKeyPattern } from './secrets.ts';
import { readSessionToken } from './session-cookie.ts';

export { sessionCookie } from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Writes each API key's `lastUsedAt` (at most once a minute per key). */
    apiKeyUsage: ApiKeyUsage;
  }
  interface FastifyRequest {
    principal: ApiKeyPrincipal | UserPrincipal | undefined;
    project: ActiveProject | undefined;
    branch: ActiveBranch | undefined;
  }
  interface FastifyContextConfig {
    /** Set on every guarded route from the route-rules table at registration. */
    rule?: RouteRule;
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const headerValue = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Attaches each guarded route's rule and enforces it before the body is even read. */
export const authPlugin = fp(
  async (
    app: FastifyInstance,
    options: { db: Db; clock: Clock; sqlite?: SqliteDatabase.Database; writes?: WriteCounter },
  ) => {
    const { db, clock } = options;
    const lookup = apiKeyLookup(db, options.sqlite, options.writes);
    const usage = new ApiKeyUsage(db, clock, (error, apiKeyId) =>
      app.log.warn({ err: error, apiKeyId }, 'could not record when the API key was last used'),
    );
    app.decorate('apiKeyUsage', usage);
    app.addHook('onClose', () => usage.settled());
    app.decorateRequest('principal', undefined);
    app.decorateRequest('project', undefined);
    app.decorateRequest('branch', undefined);

    /**
     * A route-level hook, so it runs after the rate limiter's (also route-level, registered
     * earlier): a key over its budget gets its 429 without a database lookup.
     */
    const authenticate = async (request: FastifyRequest) => {
      const rule = request.routeOptions.config.rule;
      if (!rule || rule.kind === 'public') return;
      if (rule.kind === 'apiKey') {
        // Requests with a key, or without a console cookie, take the key path unchanged.
        if (wantsConsoleSession(request, rule)) await authenticateConsoleSession(request, rule, db, clock);
        else await authenticateApiKey(request, rule);
      } else await authenticateSession(request, rule.access);
    };

    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const url = route.url;
      if (!guardedPrefixes.some((prefix) => url.startsWith(prefix))) return;
      for (const method of methods) {
        // Fastify's automatic HEAD routes run the GET handler: they get the GET rule.
        const rule = routeRules[ruleKey(method === 'HEAD' ? 'GET' : method, url)];
        if (!rule) throw new Error(`Route ${method} ${url} has no entry in the route-rules table`);
        route.config = { ...(route.config as object), rule };
      }
      const existing = route.onRequest;
      route.onRequest = [
        ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
        authenticate,
      ];
    });

    async function authenticateApiKey(request: FastifyRequest, rule: Extract<RouteRule, { kind: 'apiKey' }>) {
      const key = headerValue(request, 'x-api-key');
      // A value that cannot be a key is refused without a database lookup.
      if (!key || !apiKeyPattern.test(key)) throw unauthorized();
      const projectId = rule.project ? headerValue(request, 'x-project-id') : undefined;
      const branchId = rule.project ? headerValue(request, 'x-branch-id') : undefined;
      const validProject = projectId !== undefined && uuidPattern.test(projectId);
      const validBranch = branchId === undefined || uuidPattern.test(branchId);
      const found = await lookup(key, {
        projectId: validProject ? projectId.toLowerCase() : undefined,
        branchId: validProject && validBranch ? branchId?.toLowerCase() : undefined,
      });
      const principal = found.principal;
      if (!principal) throw unauthorized();
      usage.record(principal.apiKeyId);
      // Known before the checks below, so a refused request is audited with its actor.
      request.principal = principal;
      for (const scope of rule.scopes) if (!principal.scopes.has(scope)) throw forbidden('');
      request.principal = principal;
      if (rule.project) {
        if (!projectId) throw badRequest('No active project');
        // The spec's words for any value that names no project (or branch) of the caller's,
        // well-formed or not: a malformed id is simply one that matches nothing.
        if (!validProject || !found.project) throw notFound('Project not found');
        if (!validBranch || !found.branch) throw notFound('Branch not found');
        request.project = found.project;
        request.branch = found.branch;
      }
      if (rule.license && !principal.subscriptionActive) throw licenseRequired();
    }

    async function authenticateSession(
      request: FastifyRequest,
      access: 'read' | 'change' | 'owner' | 'installOwner',
    ) {
      const token = readSessionToken(request);
      const user = token ? await findSessionUser(db, token, clock.now()) : undefined;
      if (!user) throw new AppError(401, 'Console session required: sign in with POST /console/v1/session');
      // The /console/v1 routes are reached only with the session cookie: the same CSRF rule as /v1.
      requireCsrfHeader(request);
      request.principal = user; // before the role check: a refused request is audited with its actor
      if (access !== 'read' && user.role === 'member')
        throw forbidden('This action needs an admin or owner role');
      if (access === 'owner' && user.role !== 'owner') throw forbidden('This action needs the owner role');
    }
  },
);

export function requireApiKey(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal?.kind !== 'apiKey') throw unauthorized();
  return request.principal;
}

export function requireUser(request: FastifyRequest): UserPrincipal {
  if (request.principal?.kind !== 'user') throw new AppError(401, 'Console session required');
  return request.principal;
}

/** The project and branch the auth hook resolved for an API key; only on routes whose rule has `project`. */
export function requireScope(request: FastifyRequest): {
  principal: ApiKeyPrincipal;
  project: ActiveProject;
  branch: ActiveBranch;
} {
  const principal = requireApiKey(request);
  if (!request.project || !request.branch) throw badRequest('No active project');
  return { principal, project: request.project, branch: request.branch };
}

/**
 * Like `requireScope`, for routes whose rule also admits the console's session: the caller is
 * an API key or a signed-in user.
 */
export function requireCallerScope(request: FastifyRequest): {
  principal: ApiKeyPrincipal | UserPrincipal;
  project: ActiveProject;
  branch: ActiveBranch;
} {
  const principal = request.principal;
  if (!principal) throw unauthorized();
  if (!request.project || !request.branch) throw badRequest('No active project');
  return { principal, project: request.project, branch: request.branch };
}
