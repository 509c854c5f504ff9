import {
  environmentCreateBody,
  environmentListResponse,
  environmentResponse,
  environmentUpdateBody,
  noPayloadResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import type { EnvironmentsService } from './service.ts';

const tags = ['console'];
const projectParams = z.object({ projectId: uuid });
const environmentParams = z.object({ projectId: uuid, environmentId: uuid });

/** Console only, like presets and project secrets: secret values are written here, never read. */
export async function environmentsRoutes(
  parent: FastifyInstance,
  service: EnvironmentsService,
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/console/v1/projects/:projectId/environments',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List the environments of a project (secrets by name only)',
        response: { 200: environmentListResponse },
        tags,
        params: projectParams,
      },
    },
    async (request) => ({
      data: await service.list(requireUser(request).organizationId, request.params.projectId),
    }),
  );
  app.post(
    '/console/v1/projects/:projectId/environments',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create an environment',
        response: { 201: environmentResponse },
        tags,
        params: projectParams,
        body: environmentCreateBody,
      },
    },
    async (request, reply) => {
      const created = await service.create(
        requireUser(request).organizationId,
        request.params.projectId,
        request.body,
      );
      return reply.code(201).send({ data: created });
    },
  );
  app.get(
    '/console/v1/projects/:projectId/environments/:environmentId',
    {
      config: { access: session('read') },
      schema: {
        summary: 'Get an environment (secrets by name only)',
        response: { 200: environmentResponse },
        tags,
        params: environmentParams,
      },
    },
    async (request) => ({
      data: await service.get(
        requireUser(request).organizationId,
        request.params.projectId,
        request.params.environmentId,
      ),
    }),
  );
  app.put(
    '/console/v1/projects/:projectId/environments/:environmentId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Edit an environment (variables replaced, secrets set or removed by name)',
        response: { 200: environmentResponse },
        tags,
        params: environmentParams,
        body: environmentUpdateBody,
      },
    },
    async (request) => ({
      data: await service.update(
        requireUser(request).organizationId,
        request.params.projectId,
        request.params.environmentId,
        request.body,
      ),
    }),
  );
  app.delete(
    '/console/v1/projects/:projectId/environments/:environmentId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete an environment and its secrets',
        response: { 200: noPayloadResponse },
        tags,
        params: environmentParams,
      },
    },
    async (request) => {
      await service.delete(
        requireUser(request).organizationId,
        request.params.projectId,
        request.params.environmentId,
      );
      return { data: null };
    },
  );
}
