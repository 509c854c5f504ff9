import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import { appError } from '../../errors.ts';
import type { ApiKeyRule } from './access.ts';
import type { CredentialLookups } from './credentials.ts';
import { readSessionToken } from './session-cookie.ts';

/**
 * The header the console sends on every request. A cross-site form or a plain link cannot set
 * a custom header (and a cross-site fetch that does needs a CORS preflight the service never
 * grants), so a changing request that carries it came from the console's own pages.
 */
export const csrfHeader = 'x-stepdeck-csrf';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

const headerValue = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Refuses a cookie-authenticated changing request without the console's header (403). Called
 * once the session is known to be valid, so a signed-out caller still gets its 401 first.
 */
export function requireCsrfHeader(request: FastifyRequest): void {
  if (!safeMethods.has(request.method) && !headerValue(request, csrfHeader))
    throw appError('CSRF_HEADER_REQUIRED', csrfHeader);
}

/** A `/v1` request with no API key but a console cookie, on a rule that admits sessions. */
export function wantsConsoleSession(request: FastifyRequest, rule: ApiKeyRule) {
  return (
    rule.session !== undefined &&
    request.headers['x-api-key'] === undefined &&
    readSessionToken(request) !== undefined
  );
}

/**
 * Authenticates a `/v1` call made by the console with its session cookie: the same checks in
 * the same order as for a key, with the rule's role in place of scopes.
 */
export async function authenticateConsoleSession(
  request: FastifyRequest,
  rule: ApiKeyRule,
  credentials: CredentialLookups,
  clock: Clock,
): Promise<void> {
  const token = readSessionToken(request);
  const user = token ? await credentials.sessionUser(token, clock.now()) : undefined;
  if (!user) throw appError('SESSION_REQUIRED');
  request.principal = user; // before the CSRF and role checks: a refused request is audited with its actor
  requireCsrfHeader(request);
  if (rule.session === 'admin' && user.role === 'member') throw appError('ADMIN_ROLE_REQUIRED');
  if (rule.project) {
    const projectId = headerValue(request, 'x-project-id');
    const branchId = headerValue(request, 'x-branch-id');
    if (!projectId) throw appError('NO_ACTIVE_PROJECT');
    // Any value that is not a project (or branch) of the organization, well-formed or not, is
    // the spec's 404, as on the API-key path.
    const project = uuidPattern.test(projectId)
      ? await credentials.activeProject(user.organizationId, projectId.toLowerCase())
      : undefined;
    if (!project) throw appError('PROJECT_NOT_FOUND');
    if (branchId !== undefined && !uuidPattern.test(branchId)) throw appError('BRANCH_NOT_FOUND');
    const branch = await credentials.branch(branchId?.toLowerCase() ?? project.defaultBranchId, project.id);
    if (!branch) throw appError('BRANCH_NOT_FOUND');
    request.project = project;
    request.branch = branch;
  }
  if (rule.license && !user.subscriptionActive) throw appError('LICENSE_REQUIRED');
}
