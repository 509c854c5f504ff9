import {
  consoleEmailInboxLimitsResponse,
  consoleEmailMessageResponse,
  emailInboxLimitsResponse,
  emailInboxListResponse,
  emailInboxResponse,
  emailMessageListResponse,
  emailMessageResponse,
  errorBody,
  noPayloadResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiKeyOnly, session } from '../../plugins/auth/access.ts';
import { requireApiKey, requireUser } from '../../plugins/auth/index.ts';
import { binaryResponse } from '../../plugins/openapi.ts';
import type { InboxService } from './service.ts';

const tags = ['email-inboxes'];
const inboxParams = z.object({
  inboxId: z.string().min(1, 'inboxId must be an inbox UUID or its full email address'),
});
const messageParams = inboxParams.extend({ messageId: uuid });
const messagesQuery = z.object({
  since: z.iso
    .datetime({ offset: true, error: 'since must be an ISO 8601 datetime, e.g. 2026-01-01T12:00:00Z' })
    .optional(),
});

/**
 * The policy of a message's HTML document: no script, form, frame or plugin ever; images,
 * styles, fonts and media from elsewhere only when the reader asked (`remote`). `sandbox`
 * gives the document an opaque origin (no cookies, no console API) even outside the frame.
 */
export function messageFramePolicy(remote: boolean): string {
  const elsewhere = remote ? ' https: http:' : '';
  return [
    "default-src 'none'",
    `img-src data: cid:${elsewhere}`,
    `style-src 'unsafe-inline'${elsewhere}`,
    `font-src data:${elsewhere}`,
    `media-src data:${elsewhere}`,
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
}

export async function inboxRoutes(
  parent: FastifyInstance,
  service: InboxService,
  /** Where the SMTP listener takes mail (the console tells senders). */
  smtpAddress: () => { host: string; port: number | null },
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/email-inboxes',
    {
      config: { access: apiKeyOnly(['emailInbox:read']) },
      schema: { summary: 'List email inboxes', response: { 200: emailInboxListResponse }, tags },
    },
    async (request) => ({
      data: await service.listInboxes(requireApiKey(request).organizationId),
    }),
  );

  // Creation is console-only; API keys get a 403 that says where to go.
  app.post(
    '/v1/email-inboxes',
    {
      // Creating inboxes is console-only; the route exists to say so to API-key callers.
      config: { access: apiKeyOnly([]) },
      schema: { summary: 'Create an inbox (console only: always 403)', tags, response: { 403: errorBody } },
    },
    async () => service.refuseApiCreation(),
  );

  app.get(
    '/v1/email-inboxes/limits',
    {
      config: { access: apiKeyOnly(['emailInbox:read']) },
      schema: { summary: 'Read the inbox limits', response: { 200: emailInboxLimitsResponse }, tags },
    },
    async (request) => ({ data: await service.limits(requireApiKey(request).organizationId) }),
  );

  app.get(
    '/v1/email-inboxes/:inboxId/messages',
    {
      config: { access: apiKeyOnly(['emailInbox:read']) },
      schema: {
        summary: 'List the messages of an inbox',
        response: { 200: emailMessageListResponse },
        tags,
        params: inboxParams,
        querystring: messagesQuery,
      },
    },
    async (request, reply) => {
      const since = request.query.since === undefined ? undefined : new Date(request.query.since);
      const body = await service.listMessagesJson(
        requireApiKey(request).organizationId,
        request.params.inboxId,
        since,
      );
      // Already JSON (built by the service without an object round trip): sent as is, through
      // the untyped reply, since the schema documents the object this text spells.
      const untyped: FastifyReply = reply;
      return untyped.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get(
    '/v1/email-inboxes/:inboxId/messages/:messageId',
    {
      config: { access: apiKeyOnly(['emailInbox:read']) },
      schema: {
        summary: 'Read a message',
        response: { 200: emailMessageResponse },
        tags,
        params: messageParams,
      },
    },
    async (request) => ({
      data: await service.getMessage(
        requireApiKey(request).organizationId,
        request.params.inboxId,
        request.params.messageId,
      ),
    }),
  );

  app.delete(
    '/v1/email-inboxes/:inboxId',
    {
      config: { access: apiKeyOnly(['emailInbox:delete'], { license: true }) },
      schema: { summary: 'Delete an inbox', response: { 200: noPayloadResponse }, tags, params: inboxParams },
    },
    async (request) => {
      await service.deleteInbox(requireApiKey(request).organizationId, request.params.inboxId);
      return { data: null };
    },
  );

  app.post(
    '/console/v1/email-inboxes',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create an email inbox',
        response: { 201: emailInboxResponse },
        'x-optional-body': true,
        tags: ['console'],
        body: z
          .object({
            name: z.string().trim().max(128, 'name must be at most 128 characters').optional(),
          })
          .optional(),
      },
    },
    async (request, reply) => {
      const name = request.body?.name || undefined;
      const inbox = await service.createInbox(requireUser(request).organizationId, name);
      return reply.code(201).send({ data: inbox });
    },
  );

  app.get(
    '/console/v1/email-inboxes',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List email inboxes (console)',
        response: { 200: emailInboxListResponse },
        tags: ['console'],
      },
    },
    async (request) => ({
      data: await service.listInboxes(requireUser(request).organizationId),
    }),
  );

  // Administration: the console's message viewer reads and deletes with the session cookie.
  app.get(
    '/console/v1/email-inboxes/limits',
    {
      config: { access: session('read') },
      schema: {
        summary: 'Read the inbox limits and the SMTP address (console)',
        response: { 200: consoleEmailInboxLimitsResponse },
        tags: ['console'],
      },
    },
    async (request) => {
      const user = requireUser(request);
      return { data: { ...(await service.limits(user.organizationId)), smtp: smtpAddress() } };
    },
  );

  app.get(
    '/console/v1/email-inboxes/:inboxId/messages',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List the messages of an inbox (console), newest first',
        response: { 200: emailMessageListResponse },
        tags: ['console'],
        params: inboxParams,
        querystring: messagesQuery,
      },
    },
    async (request, reply) => {
      const since = request.query.since === undefined ? undefined : new Date(request.query.since);
      const body = await service.listMessagesJson(
        requireUser(request).organizationId,
        request.params.inboxId,
        since,
      );
      const untyped: FastifyReply = reply;
      return untyped.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get(
    '/console/v1/email-inboxes/:inboxId/messages/:messageId',
    {
      config: { access: session('read') },
      schema: {
        summary: 'Read a message with its raw headers (console)',
        response: { 200: consoleEmailMessageResponse },
        tags: ['console'],
        params: messageParams,
      },
    },
    async (request) => ({
      data: await service.getMessage(
        requireUser(request).organizationId,
        request.params.inboxId,
        request.params.messageId,
      ),
    }),
  );

  // The viewer's frame: the message's HTML as a document of its own, whose CSP (and sandbox)
  // forbid scripts, forms and, unless `remote=1`, every load from elsewhere (tracking pixels).
  app.get(
    '/console/v1/email-inboxes/:inboxId/messages/:messageId/html',
    {
      config: { access: session('read') },
      schema: {
        summary: "A message's HTML for the console's sandboxed frame",
        tags: ['console'],
        params: messageParams,
        querystring: z.object({ remote: z.enum(['0', '1']).default('0') }),
        response: { 200: binaryResponse('text/html', "The message's HTML under its own CSP.") },
      },
    },
    async (request, reply) => {
      const message = await service.getMessage(
        requireUser(request).organizationId,
        request.params.inboxId,
        request.params.messageId,
      );
      const untyped: FastifyReply = reply;
      return untyped
        .header('content-security-policy', messageFramePolicy(request.query.remote === '1'))
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(`<!doctype html><meta charset="utf-8"><base target="_blank">${message.bodyHtml}`);
    },
  );

  app.delete(
    '/console/v1/email-inboxes/:inboxId/messages/:messageId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete a message (console)',
        response: { 200: noPayloadResponse },
        tags: ['console'],
        params: messageParams,
      },
    },
    async (request) => {
      await service.deleteMessage(
        requireUser(request).organizationId,
        request.params.inboxId,
        request.params.messageId,
      );
      return { data: null };
    },
  );

  app.delete(
    '/console/v1/email-inboxes/:inboxId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete an inbox and its messages (console)',
        response: { 200: noPayloadResponse },
        tags: ['console'],
        params: inboxParams,
      },
    },
    async (request) => {
      await service.deleteInbox(requireUser(request).organizationId, request.params.inboxId);
      return { data: null };
    },
  );
}
