import {
  noPayloadResponse,
  projectSecretListResponse,
  projectSecretResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import { ProjectSecrets } from './secrets.ts';

const tags = ['console'];
const secretName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    'name must be letters, digits and underscores, not starting with a digit',
  );

/** Project secrets: values are write-only (listed by name, never returned). */
export async function secretsRoutes(parent: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const secrets = new ProjectSecrets({ db: ctx.db, clock: ctx.clock });

  app.post(
    '/console/v1/projects/:projectId/secrets',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Set a project secret',
        response: { 200: projectSecretResponse, 201: projectSecretResponse },
        tags,
        params: z.object({ projectId: uuid }),
        body: z.object({
          name: secretName,
          value: z.string({ error: 'value must be a string' }).max(65_536),
        }),
      },
    },
    async (request, reply) => {
      const { created, secret } = await secrets.put(
        requireUser(request).organizationId,
        request.params.projectId,
        request.body.name,
        request.body.value,
      );
      return reply.code(created ? 201 : 200).send({ data: secret });
    },
  );

  app.get(
    '/console/v1/projects/:projectId/secrets',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List the secrets of a project',
        response: { 200: projectSecretListResponse },
        tags,
        params: z.object({ projectId: uuid }),
      },
    },
    async (request) => {
      return { data: await secrets.list(requireUser(request).organizationId, request.params.projectId) };
    },
  );

  app.delete(
    '/console/v1/projects/:projectId/secrets/:name',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete a project secret',
        response: { 200: noPayloadResponse },
        tags,
        params: z.object({ projectId: uuid, name: z.string() }),
      },
    },
    async (request) => {
      await secrets.remove(
        requireUser(request).organizationId,
        request.params.projectId,
        request.params.name,
      );
      return { data: null };
    },
  );
}
