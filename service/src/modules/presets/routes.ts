import {
  noPayloadResponse,
  presetCreateBody,
  presetListResponse,
  presetResponse,
  presetUpdateBody,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import type { PresetsService } from './service.ts';

const tags = ['console'];
const projectParams = z.object({ projectId: uuid });
const presetParams = z.object({ projectId: uuid, presetId: uuid });

export async function presetsRoutes(parent: FastifyInstance, service: PresetsService): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/console/v1/projects/:projectId/presets',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List the config presets of a project',
        response: { 200: presetListResponse },
        tags,
        params: projectParams,
      },
    },
    async (request) => ({
      data: await service.list(requireUser(request).organizationId, request.params.projectId),
    }),
  );
  app.post(
    '/console/v1/projects/:projectId/presets',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a config preset',
        response: { 201: presetResponse },
        tags,
        params: projectParams,
        body: presetCreateBody,
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
  app.put(
    '/console/v1/projects/:projectId/presets/:presetId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Edit a config preset',
        response: { 200: presetResponse },
        tags,
        params: presetParams,
        body: presetUpdateBody,
      },
    },
    async (request) => ({
      data: await service.update(
        requireUser(request).organizationId,
        request.params.projectId,
        request.params.presetId,
        request.body,
      ),
    }),
  );
  app.delete(
    '/console/v1/projects/:projectId/presets/:presetId',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete a config preset (refused while a schedule names it)',
        response: { 200: noPayloadResponse },
        tags,
        params: presetParams,
      },
    },
    async (request) => {
      await service.delete(
        requireUser(request).organizationId,
        request.params.projectId,
        request.params.presetId,
      );
      return { data: null };
    },
  );
}
