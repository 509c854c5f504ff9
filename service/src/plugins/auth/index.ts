import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../clock.ts';
import { appError } from '../../errors.ts';
import {
  type AccessRule,
  type ApiKeyRule,
  accessKey,
  guardedPrefixes,
  type SessionAccess,
} from './access.ts';
import { authenticateConsoleSession, requireCsrfHeader, wantsConsoleSession } from './console-session.ts';
import type {
  ActiveBranch,
  ActiveProject,
  ApiKeyPrincipal,
  CredentialLookups,
  UserPrincipal,
} from './credentials.ts';
import { apiKeyPattern } from './secrets.ts';
import { readSessionToken } from './session-cookie.ts';

export { sessionCookie } from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Writes each API key's `lastUsedAt` (at most once a minute per key). */
    apiKeyUsage: CredentialLookups['keyUsage'];
    /** Every guarded route's rule by `METHOD /url`, as the routes declared them (read by the API document and tests). */
    accessRules: ReadonlyMap<string, AccessRule>;
  }
  interface FastifyRequest {
    principal: ApiKeyPrincipal | UserPrincipal | undefined;
    project: ActiveProject | undefined;
    branch: ActiveBranch | undefined;
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const headerValue = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Checks that each guarded route declares its access rule, and enforces it before the body is
 * even read. `credentials` are the accounts module's lookups, passed in by app.ts.
 */
export const authPlugin = fp(
  async (app: FastifyInstance, options: { credentials: CredentialLookups; clock: Clock }) => {
    const { credentials, clock } = options;
    const lookup = credentials.apiKey;
    const usage = credentials.keyUsage;
    app.decorate('apiKeyUsage', usage);
    app.addHook('onClose', () => usage.settled());
    app.decorateRequest('principal', undefined);
    app.decorateRequest('project', undefined);
    app.decorateRequest('branch', undefined);
    const accessRules = new Map<string, AccessRule>();
    app.decorate('accessRules', accessRules);

    /**
     * A route-level hook, so it runs after the rate limiter's (also route-level, registered
     * earlier): a key over its budget gets its 429 without a database lookup.
     */
    const authenticate = async (request: FastifyRequest) => {
      const rule = request.routeOptions.config.access;
      if (!rule || rule.kind === 'public') return;
      if (rule.kind === 'apiKey') {
        // Requests with a key, or without a console cookie, take the key path unchanged.
        if (wantsConsoleSession(request, rule))
          await authenticateConsoleSession(request, rule, credentials, clock);
        else await authenticateApiKey(request, rule);
      } else await authenticateSession(request, rule.access);
    };

    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const url = route.url;
      if (!guardedPrefixes.some((prefix) => url.startsWith(prefix))) return;
      // Fastify's automatic HEAD routes copy their GET route's options, rule included.
      const rule = route.config?.access;
      if (!rule) throw new Error(`Route ${methods.join(',')} ${url} declares no access rule (config.access)`);
      for (const method of methods) if (method !== 'HEAD') accessRules.set(accessKey(method, url), rule);
      const existing = route.onRequest;
      route.onRequest = [
        ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
        authenticate,
      ];
    });

    async function authenticateApiKey(request: FastifyRequest, rule: ApiKeyRule) {
      const key = headerValue(request, 'x-api-key');
      // A value that cannot be a key is refused without a database lookup.
      if (!key || !apiKeyPattern.test(key)) throw appError('INVALID_API_KEY');
      const projectId = rule.project ? headerValue(request, 'x-project-id') : undefined;
      const branchId = rule.project ? headerValue(request, 'x-branch-id') : undefined;
      const validProject = projectId !== undefined && uuidPattern.test(projectId);
      const validBranch = branchId === undefined || uuidPattern.test(branchId);
      const found = await lookup(key, {
        projectId: validProject ? projectId.toLowerCase() : undefined,
        branchId: validProject && validBranch ? branchId?.toLowerCase() : undefined,
      });
      const principal = found.principal;
      if (!principal) throw appError('INVALID_API_KEY');
      usage.record(principal.apiKeyId);
      // Known before the checks below, so a refused request is audited with its actor.
      request.principal = principal;
      for (const scope of rule.scopes) if (!principal.scopes.has(scope)) throw appError('MISSING_SCOPE');
      request.principal = principal;
      if (rule.project) {
        if (!projectId) throw appError('NO_ACTIVE_PROJECT');
        // The spec's words for any value that names no project (or branch) of the caller's,
        // well-formed or not: a malformed id is simply one that matches nothing.
        if (!validProject || !found.project) throw appError('PROJECT_NOT_FOUND');
        if (!validBranch || !found.branch) throw appError('BRANCH_NOT_FOUND');
        request.project = found.project;
        request.branch = found.branch;
      }
      if (rule.license && !principal.subscriptionActive) throw appError('LICENSE_REQUIRED');
    }

    async function authenticateSession(request: FastifyRequest, access: SessionAccess) {
      const token = readSessionToken(request);
      const user = token ? await credentials.sessionUser(token, clock.now()) : undefined;
      if (!user) throw appError('SESSION_REQUIRED');
      // Before the CSRF and role checks: a refused request is audited with its actor.
      request.principal = user;
      // The /console/v1 routes are reached only with the session cookie: the same CSRF rule as /v1.
      requireCsrfHeader(request);
      if (access === 'installAdmin') {
        if (!user.installAdmin) throw appError('INSTALL_ADMIN_REQUIRED');
        return;
      }
      if (access !== 'read' && user.role === 'member') throw appError('ADMIN_ROLE_REQUIRED');
      if (access === 'owner' && user.role !== 'owner') throw appError('OWNER_ROLE_REQUIRED');
    }
  },
);

export function requireApiKey(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal?.kind !== 'apiKey') throw appError('INVALID_API_KEY');
  return request.principal;
}

export function requireUser(request: FastifyRequest): UserPrincipal {
  if (request.principal?.kind !== 'user') throw appError('SESSION_REQUIRED');
  return request.principal;
}

/** The project and branch the auth hook resolved for an API key; only on routes whose rule has `project`. */
export function requireScope(request: FastifyRequest): {
  principal: ApiKeyPrincipal;
  project: ActiveProject;
  branch: ActiveBranch;
} {
  const principal = requireApiKey(request);
  if (!request.project || !request.branch) throw appError('NO_ACTIVE_PROJECT');
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
  if (!principal) throw appError('INVALID_API_KEY');
  if (!request.project || !request.branch) throw appError('NO_ACTIVE_PROJECT');
  return { principal, project: request.project, branch: request.branch };
}
