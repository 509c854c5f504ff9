import { uuid } from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireApiKey, requireUser } from '../../plugins/auth/index.ts';
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

export async function inboxRoutes(parent: FastifyInstance, service: InboxService): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/email-inboxes', { schema: { tags } }, async (request) => ({
    data: await service.listInboxes(requireApiKey(request).organizationId),
  }));

  // Creation is console-only; API keys get a 403 that says where to go.
  app.post('/v1/email-inboxes', { schema: { tags } }, async () => service.refuseApiCreation());

  app.get('/v1/email-inboxes/limits', { schema: { tags } }, async () => ({ data: service.limits() }));

  app.get(
    '/v1/email-inboxes/:inboxId/messages',
    { schema: { tags, params: inboxParams, querystring: messagesQuery } },
    async (request, reply) => {
      const since = request.query.since === undefined ? undefined : new Date(request.query.since);
      const body = await service.listMessagesJson(
        requireApiKey(request).organizationId,
        request.params.inboxId,
        since,
      );
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get(
    '/v1/email-inboxes/:inboxId/messages/:messageId',
    { schema: { tags, params: messageParams } },
    async (request) => ({
      data: await service.getMessage(
        requireApiKey(request).organizationId,
        request.params.inboxId,
        request.params.messageId,
      ),
    }),
  );

  app.delete('/v1/email-inboxes/:inboxId', { schema: { tags, params: inboxParams } }, async (request) => {
    await service.deleteInbox(requireApiKey(request).organizationId, request.params.inboxId);
    return { data: null };
  });

  app.post(
    '/console/v1/email-inboxes',
    {
      schema: {
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

  app.get('/console/v1/email-inboxes', { schema: { tags: ['console'] } }, async (request) => ({
    data: await service.listInboxes(requireUser(request).organizationId),
  }));
}
