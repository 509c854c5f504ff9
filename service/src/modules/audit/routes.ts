import { auditLogQuery, auditLogResponse, installAuditLogQuery } from '@stepdeck/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type CompanionWrite, withCompanionWrite } from '../../adapters/db/companion-writes.ts';
import type { AppContext } from '../../context.ts';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import { binaryResponse } from '../../plugins/openapi.ts';
import type { AuditRow } from './repository.ts';
import { auditResource, isAudited } from './resource.ts';
import { type AuditActor, type AuditLog, auditCsv } from './service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The id of the audit entry of this changing request. */
    auditEntryId: string | undefined;
    /** The entry prepared for this changing request and how far it got (see companion-writes.ts). */
    auditEntry: { row: AuditRow; companion: CompanionWrite } | undefined;
    /**
     * Whom a request without credentials is recorded as (a failed sign-in names the account
     * tried); set by the route, which also makes an otherwise unaudited request audited.
     */
    auditSubject: AuditActor | undefined;
    /** What the request did beyond its route, in words, written with its outcome. */
    auditDetail: string | undefined;
  }
}

const tags = ['console'];
const exportQuery = auditLogQuery
  .omit({ page: true, limit: true })
  .extend({ format: z.enum(['csv', 'json'], { error: 'format must be csv or json' }).default('json') });

/** Default retention of audit entries, in days (AUDIT_RETENTION_DAYS). */
export const defaultAuditRetentionDays = 365;

export async function auditRoutes(parent: FastifyInstance, ctx: AppContext, audit: AuditLog): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  const actorOf = (request: FastifyRequest): AuditActor | undefined => {
    const principal = request.principal;
    if (!principal) return request.auditSubject;
    return principal.kind === 'user'
      ? {
          kind: 'user' as const,
          userId: principal.userId,
          email: principal.email,
          organizationId: principal.organizationId,
        }
      : {
          kind: 'apiKey' as const,
          apiKeyId: principal.apiKeyId,
          apiKeyName: principal.apiKeyName,
          apiKeyPrefix: principal.apiKeyPrefix,
          organizationId: principal.organizationId,
        };
  };

  const describe = (request: FastifyRequest, createdId?: string, status?: number) => {
    const actor = actorOf(request);
    if (!actor) return undefined;
    const route = request.routeOptions.url ?? request.url;
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const resource = auditResource(request.method, route, params, createdId);
    const projectParam = params.projectId;
    return {
      actor,
      action: `${request.method} ${route}`,
      resourceType: resource.type,
      resourceId: resource.id ?? null,
      projectId:
        request.project?.id ?? (projectParam && /^[0-9a-f-]{36}$/i.test(projectParam) ? projectParam : null),
      ip: request.ip,
      userAgent: String(request.headers['user-agent'] ?? ''),
      status,
    };
  };

  const audited = (request: FastifyRequest) => {
    const route = request.routeOptions.url;
    const rule = request.routeOptions.config.access;
    if (request.auditSubject) return true;
    return (
      route !== undefined && rule !== undefined && rule.kind !== 'public' && isAudited(request.method, route)
    );
  };

  app.decorateRequest('auditEntryId', undefined);
  app.decorateRequest('auditEntry', undefined);
  app.decorateRequest('auditSubject', undefined);
  app.decorateRequest('auditDetail', undefined);
  // After authentication (onRequest) and before the body is validated or the handler runs: the
  // entry is prepared, and the rest of the request runs in a scope where the database adapter
  // writes it inside the first transaction of the change (companion-writes.ts): no change
  // commits without its entry, a rolled-back change takes its entry with it. A handler may take
  // the entry instead and write it in its own transaction (request-entry.ts: the run triggers).
  // A callback hook, so `done` (the rest of the request) runs inside the scope, as
  // @fastify/request-context does.
  app.addHook('preValidation', (request, _reply, done) => {
    if (!audited(request)) return done();
    const entry = describe(request);
    if (!entry) return done();
    audit.prepare(entry).then(
      ({ row, statement }) => {
        const companion: CompanionWrite = { statement, state: 'pending' };
        request.auditEntry = { row, companion };
        request.auditEntryId = row.id;
        withCompanionWrite(companion, () => done());
      },
      (error: Error) => done(error),
    );
  });
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    if (!audited(request)) return payload;
    const prepared = request.auditEntry;
    if (prepared) {
      // Closed first: the entry's own writes below, and anything the request left running, carry nothing.
      // An entry the handler took (request-entry.ts) is closed already: whether its transaction
      // committed is not known here, so it is finished as not written (an upsert).
      const written = prepared.companion.state === 'written';
      prepared.companion.state = 'closed';
      // A create names its record only in the response: the entry's resource comes from it,
      // written with the outcome in one statement.
      const resource = reply.statusCode === 201 ? createdResource(request, payload) : undefined;
      await audit.finish(prepared.row, written, {
        status: reply.statusCode,
        resource,
        detail: request.auditDetail,
      });
    } else {
      // Refused before validation (a member's admin action, a missing scope, a missing CSRF
      // header, a failed sign-in): recorded as refused.
      const entry = describe(request, undefined, reply.statusCode);
      if (entry) await audit.record({ ...entry, detail: request.auditDetail });
    }
    return payload;
  });

  /** The record a create made, as its response names it (`data.id`). */
  function createdResource(request: FastifyRequest, payload: unknown) {
    if (typeof payload !== 'string' || payload.length > 1_000_000) return undefined;
    let createdId: unknown;
    try {
      createdId = (JSON.parse(payload) as { data?: { id?: unknown } }).data?.id;
    } catch {
      return undefined;
    }
    if (typeof createdId !== 'string') return undefined;
    const entry = describe(request, createdId);
    return entry ? { resourceType: entry.resourceType, resourceId: entry.resourceId } : undefined;
  }

  app.get(
    '/console/v1/audit-log',
    {
      // A read, but for admins and owners only: `change` is the admin-or-owner level.
      config: { access: session('change') },
      schema: {
        summary: 'List audit log entries, newest first (admins and owners)',
        response: { 200: auditLogResponse },
        tags,
        querystring: auditLogQuery,
      },
    },
    async (request) => {
      const { page, limit, ...filters } = request.query;
      return audit.list(requireUser(request).organizationId, filters, page, limit);
    },
  );
  app.get(
    '/console/v1/install/audit-log',
    {
      config: { access: session('installAdmin') },
      schema: {
        summary: "List the install's audit log: every organization's, or one's (install admins)",
        response: { 200: auditLogResponse },
        tags: ['install'],
        querystring: installAuditLogQuery,
      },
    },
    async (request) => {
      const { page, limit, organizationId, ...filters } = request.query;
      return audit.list(organizationId, filters, page, limit);
    },
  );
  app.get(
    '/console/v1/audit-log/export',
    {
      // A read, but for admins and owners only: `change` is the admin-or-owner level.
      config: { access: session('change') },
      schema: {
        summary: 'Export audit log entries as CSV or JSON (admins and owners)',
        response: {
          200: {
            description: 'The entries (at most 50,000; narrow the filters for more), as CSV or a JSON array.',
            content: {
              ...binaryResponse('text/csv', '').content,
              ...binaryResponse('application/json', '').content,
            },
          },
        },
        tags,
        querystring: exportQuery,
      },
    },
    async (request, reply) => {
      const { format, ...filters } = request.query;
      const entries = await audit.exportEntries(requireUser(request).organizationId, filters);
      const stamp = ctx.clock.now().toISOString().slice(0, 10);
      reply.header('content-disposition', `attachment; filename="audit-log-${stamp}.${format}"`);
      if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(auditCsv(entries));
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(entries));
    },
  );
}
