import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { AppError, badRequest, forbidden, licenseRequired, notFound, unauthorized } from '../../errors.ts';
import {
  type ActiveBranch,
  type ActiveProject,
  type ApiKeyPrincipal,
  findApiKey,
  findBranch,
  findProject,
  findSessionUser,
  type UserPrincipal,
} from './credentials.ts';
import { guardedPrefixes, type RouteRule, routeRules, ruleKey } from './route-rules.ts';

export const sessionCookie = 'stepdeck_session';

declare module 'fastify' {
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
export const authPlugin = fp(async (app: FastifyInstance, options: { db: Db; clock: Clock }) => {
  const { db, clock } = options;
  app.decorateRequest('principal', undefined);
  app.decorateRequest('project', undefined);
  app.decorateRequest('branch', undefined);

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const url = route.url;
    if (!guardedPrefixes.some((prefix) => url.startsWith(prefix))) return;
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const rule = routeRules[ruleKey(method, url)];
      if (!rule) throw new Error(`Route ${method} ${url} has no entry in the route-rules table`);
      route.config = { ...(route.config as object), rule };
    }
  });

  app.addHook('onRequest', async (request) => {
    const rule = request.routeOptions.config.rule;
    if (!rule || rule.kind === 'public') return;
    if (rule.kind === 'apiKey') await authenticateApiKey(request, rule);
    else await authenticateSession(request, rule.access);
  });

  async function authenticateApiKey(request: FastifyRequest, rule: Extract<RouteRule, { kind: 'apiKey' }>) {
    const key = headerValue(request, 'x-api-key');
    const principal = key ? await findApiKey(db, key) : undefined;
    if (!principal) throw unauthorized();
    for (const scope of rule.scopes) if (!principal.scopes.has(scope)) throw forbidden('');
    request.principal = principal;
    if (rule.project) {
      const projectId = headerValue(request, 'x-project-id');
      if (!projectId) throw badRequest('No active project');
      if (!uuidPattern.test(projectId)) throw badRequest('x-project-id must be a UUID');
      const project = await findProject(db, principal.organizationId, projectId);
      if (!project) throw notFound('Project not found');
      const branchId = headerValue(request, 'x-branch-id');
      if (branchId !== undefined && !uuidPattern.test(branchId))
        throw badRequest('x-branch-id must be a UUID');
      const branch = await findBranch(db, project.id, branchId ?? project.defaultBranchId);
      if (!branch) throw notFound('Branch not found');
      request.project = project;
      request.branch = branch;
    }
    if (rule.license && !principal.subscriptionActive) throw licenseRequired();
  }

  async function authenticateSession(request: FastifyRequest, access: 'read' | 'change' | 'installOwner') {
    const token = request.cookies[sessionCookie];
    const user = token ? await findSessionUser(db, token, clock.now()) : undefined;
    if (!user) throw new AppError(401, 'Console session required: sign in with POST /console/v1/session');
    if (access !== 'read' && user.role === 'member')
      throw forbidden('This action needs an admin or owner role');
    request.principal = user;
  }
});

export function requireApiKey(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal?.kind !== 'apiKey') throw unauthorized();
  return request.principal;
}

export function requireUser(request: FastifyRequest): UserPrincipal {
  if (request.principal?.kind !== 'user') throw new AppError(401, 'Console session required');
  return request.principal;
}

/** The project and branch the auth hook resolved; only on routes whose rule has `project`. */
export function requireScope(request: FastifyRequest): {
  principal: ApiKeyPrincipal;
  project: ActiveProject;
  branch: ActiveBranch;
} {
  const principal = requireApiKey(request);
  if (!request.project || !request.branch) throw badRequest('No active project');
  return { principal, project: request.project, branch: request.branch };
}
