import {
  createdWebhookResponse,
  noPayloadResponse,
  rotatedSecretResponse,
  uuid,
  webhookDeliveryListResponse,
  webhookDeliveryResponse,
  webhookListResponse,
  webhookResponse,
  webhookSamplePayloadResponse,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { apiKeyOnly, session } from '../../plugins/auth/access.ts';
import { requireApiKey, requireUser } from '../../plugins/auth/index.ts';
import { sampleBody, webhookEvents } from './payload.ts';
import type { WebhooksService } from './service.ts';

const tags = ['webhooks'];
const event = z.enum(webhookEvents, { error: 'must be run.completed or run.failed' });
const url = z.string({ error: 'url must be a string' }).trim().min(1, 'url must not be empty').max(2048);
const events = z.array(event, { error: 'events must be an array' }).min(1, 'at least one event is required');
const customData = z.record(z.string(), z.unknown(), { error: 'customData must be a JSON object' });
const idParams = z.object({ id: uuid });
const deliveryParams = z.object({ id: uuid, deliveryId: uuid });

export async function webhooksRoutes(
  parent: FastifyInstance,
  ctx: AppContext,
  service: WebhooksService,
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/webhooks/sample-payload',
    {
      // The spec leaves this scope open: any valid key may read an example payload.
      config: { access: apiKeyOnly([]) },
      schema: {
        summary: 'Read an example webhook body',
        response: { 200: webhookSamplePayloadResponse },
        tags,
        querystring: z.object({ event }),
      },
    },
    async (request) => {
      requireApiKey(request);
      return { data: sampleBody(request.query.event, ctx.config.publicUrl) };
    },
  );

  // The console shows each event's sample body on the webhooks page (a session may not call /v1's).
  app.get(
    '/console/v1/webhooks/sample-payload',
    {
      config: { access: session('read') },
      schema: {
        summary: 'Read an example webhook body (console)',
        response: { 200: webhookSamplePayloadResponse },
        tags,
        querystring: z.object({ event }),
      },
    },
    async (request) => {
      requireUser(request);
      return { data: sampleBody(request.query.event, ctx.config.publicUrl) };
    },
  );

  app.post(
    '/console/v1/webhooks',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a webhook',
        response: { 201: createdWebhookResponse },
        tags,
        body: z.object({
          url,
          events,
          customData: customData.nullable().optional(),
          enabled: z.boolean().optional(),
        }),
      },
    },
    async (request, reply) => {
      const created = await service.create(requireUser(request), request.body);
      return reply.code(201).send({ data: created });
    },
  );
  app.get(
    '/console/v1/webhooks',
    {
      config: { access: session('read') },
      schema: { summary: 'List webhooks', response: { 200: webhookListResponse }, tags },
    },
    async (request) => ({
      data: await service.list(requireUser(request)),
    }),
  );
  app.get(
    '/console/v1/webhooks/:id',
    {
      config: { access: session('read') },
      schema: { summary: 'Read a webhook', response: { 200: webhookResponse }, tags, params: idParams },
    },
    async (request) => ({
      data: await service.get(requireUser(request), request.params.id),
    }),
  );
  app.put(
    '/console/v1/webhooks/:id',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Update a webhook',
        response: { 200: webhookResponse },
        tags,
        params: idParams,
        body: z.object({
          url: url.optional(),
          events: events.optional(),
          customData: customData.nullable().optional(),
          enabled: z.boolean().optional(),
        }),
      },
    },
    async (request) => ({
      data: await service.update(requireUser(request), request.params.id, request.body),
    }),
  );
  app.post(
    '/console/v1/webhooks/:id/enable',
    {
      config: { access: session('change') },
      schema: { summary: 'Enable a webhook', response: { 200: webhookResponse }, tags, params: idParams },
    },
    async (request) => ({
      data: await service.setEnabled(requireUser(request), request.params.id, true),
    }),
  );
  app.post(
    '/console/v1/webhooks/:id/disable',
    {
      config: { access: session('change') },
      schema: { summary: 'Disable a webhook', response: { 200: webhookResponse }, tags, params: idParams },
    },
    async (request) => ({
      data: await service.setEnabled(requireUser(request), request.params.id, false),
    }),
  );
  app.post(
    '/console/v1/webhooks/:id/rotate-secret',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Rotate the signing secret of a webhook',
        response: { 200: rotatedSecretResponse },
        tags,
        params: idParams,
      },
    },
    async (request) => ({
      data: await service.rotateSecret(requireUser(request), request.params.id),
    }),
  );
  app.delete(
    '/console/v1/webhooks/:id',
    {
      config: { access: session('change') },
      schema: { summary: 'Delete a webhook', response: { 200: noPayloadResponse }, tags, params: idParams },
    },
    async (request) => {
      await service.remove(requireUser(request), request.params.id);
      return { data: null };
    },
  );
  app.get(
    '/console/v1/webhooks/:id/deliveries',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List the deliveries of a webhook',
        response: { 200: webhookDeliveryListResponse },
        tags,
        params: idParams,
      },
    },
    async (request) => ({
      data: await service.deliveries(requireUser(request), request.params.id),
    }),
  );
  app.post(
    '/console/v1/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Retry a delivery',
        response: { 200: webhookDeliveryResponse },
        tags,
        params: deliveryParams,
      },
    },
    async (request) => ({
      data: await service.retry(requireUser(request), request.params.id, request.params.deliveryId),
    }),
  );
}
