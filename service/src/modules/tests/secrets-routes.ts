import { uuid } from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { requireUser } from '../../plugins/auth/index.ts';

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
  const projectOf = async (organizationId: string, projectId: string) => {
    const project = await ctx.db
      .selectFrom('projects')
      .select('id')
      .where('id', '=', projectId)
      .where('organizationId', '=', organizationId)
      .executeTakeFirst();
    if (!project) throw notFound('Project not found');
    return project.id;
  };

  app.post(
    '/console/v1/projects/:projectId/secrets',
    {
      schema: {
        tags,
        params: z.object({ projectId: uuid }),
        body: z.object({
          name: secretName,
          value: z.string({ error: 'value must be a string' }).max(65_536),
        }),
      },
    },
    async (request, reply) => {
      const projectId = await projectOf(requireUser(request).organizationId, request.params.projectId);
      const now = isoNow(ctx.clock);
      const existing = await ctx.db
        .selectFrom('projectSecrets')
        .select('createdAt')
        .where('projectId', '=', projectId)
        .where('name', '=', request.body.name)
        .executeTakeFirst();
      if (existing)
        await ctx.db
          .updateTable('projectSecrets')
          .set({ value: request.body.value, updatedAt: now })
          .where('projectId', '=', projectId)
          .where('name', '=', request.body.name)
          .execute();
      else
        await ctx.db
          .insertInto('projectSecrets')
          .values({
            projectId,
            name: request.body.name,
            value: request.body.value,
            createdAt: now,
            updatedAt: now,
          })
          .execute();
      return reply
        .code(existing ? 200 : 201)
        .send({ data: { name: request.body.name, createdAt: existing?.createdAt ?? now, updatedAt: now } });
    },
  );

  app.get(
    '/console/v1/projects/:projectId/secrets',
    { schema: { tags, params: z.object({ projectId: uuid }) } },
    async (request) => {
      const projectId = await projectOf(requireUser(request).organizationId, request.params.projectId);
      const rows = await ctx.db
        .selectFrom('projectSecrets')
        .select(['name', 'createdAt', 'updatedAt'])
        .where('projectId', '=', projectId)
        .orderBy('name')
        .execute();
      return { data: rows };
    },
  );

  app.delete(
    '/console/v1/projects/:projectId/secrets/:name',
    { schema: { tags, params: z.object({ projectId: uuid, name: z.string() }) } },
    async (request) => {
      const projectId = await projectOf(requireUser(request).organizationId, request.params.projectId);
      const result = await ctx.db
        .deleteFrom('projectSecrets')
        .where('projectId', '=', projectId)
        .where('name', '=', request.params.name)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw notFound('Secret not found');
      return { data: null };
    },
  );
}
