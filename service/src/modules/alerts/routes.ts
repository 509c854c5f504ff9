import {
  alertChannelCreateBody,
  alertChannelListResponse,
  alertChannelResponse,
  alertChannelTestResponse,
  alertChannelUpdateBody,
  alertDeliveryListResponse,
  noPayloadResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import type { AlertsService } from './service.ts';

const tags = ['console'];
const projectParams = z.object({ projectId: uuid });
const channelParams = z.object({ projectId: uuid, channelId: uuid });

/** A project's alert channels: everyone reads (members see chat URLs masked), admins change. */
export async function alertsRoutes(parent: FastifyInstance, service: AlertsService): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/console/v1/projects/:projectId/alert-channels',
    {
      config: { access: session('read') },
      schema: {
        summary: "List a project's alert channels",
        response: { 200: alertChannelListResponse },
        tags,
        params: projectParams,
      },
    },
    async (request) => ({ data: await service.list(requireUser(request), request.params.projectId) }),
  );
  app.post(
    '/console/v1/projects/:projectId/alert-channels',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create an alert channel (Slack, Microsoft Teams or email) for run failures and recoveries',
        response: { 201: alertChannelResponse },
        tags,
        params: projectParams,
        body: alertChannelCreateBody,
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send({ data: await service.create(requireUser(request), request.params.projectId, request.body) }),
  );
  app.get(
    '/console/v1/projects/:projectId/alert-channels/:channelId',
    {
      config: { access: session('read') },
      schema: {
        summary: 'Read an alert channel',
        response: { 200: alertChannelResponse },
        tags,
        params: channelParams,
      },
    },
    async (request) => ({
      data: await service.get(requireUser(request), request.params.projectId, request.params.channelId),
    }),
  );
  app.put(
    '/console/v1/projects/:projectId/alert-channels/:channelId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Change an alert channel',
        response: { 200: alertChannelResponse },
        tags,
        params: channelParams,
        body: alertChannelUpdateBody,
      },
    },
    async (request) => ({
      data: await service.update(
        requireUser(request),
        request.params.projectId,
        request.params.channelId,
        request.body,
      ),
    }),
  );
  app.delete(
    '/console/v1/projects/:projectId/alert-channels/:channelId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete an alert channel',
        response: { 200: noPayloadResponse },
        tags,
        params: channelParams,
      },
    },
    async (request) => {
      await service.remove(requireUser(request), request.params.projectId, request.params.channelId);
      return { data: null };
    },
  );
  app.get(
    '/console/v1/projects/:projectId/alert-channels/:channelId/deliveries',
    {
      config: { access: session('read') },
      schema: {
        summary: "An alert channel's latest deliveries (newest first, at most 20) with their attempts",
        response: { 200: alertDeliveryListResponse },
        tags,
        params: channelParams,
      },
    },
    async (request) => ({
      data: await service.deliveries(
        requireUser(request),
        request.params.projectId,
        request.params.channelId,
      ),
    }),
  );
  app.post(
    '/console/v1/projects/:projectId/alert-channels/:channelId/test',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Send a test message through an alert channel now',
        response: { 200: alertChannelTestResponse },
        tags,
        params: channelParams,
      },
    },
    async (request) => ({
      data: await service.sendTest(requireUser(request), request.params.projectId, request.params.channelId),
    }),
  );
}
