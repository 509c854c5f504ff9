import {
  bulkDeleteBody,
  bulkUpdateStatusBody,
  bulkUpdateTagsBody,
  createRevisionBody,
  duplicateTestBody,
  exportTestsBody,
  listTestsQuery,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { requireScope } from '../../plugins/auth/index.ts';
import { readForm } from './multipart.ts';
import { parseJsonField, type Scope, TestsService } from './service.ts';
import { TransferService } from './transfer.ts';

const tags = ['tests'];
const testParams = z.object({ testId: uuid });

/** The active project and branch; `branch` in the query overrides `x-branch-id`. */
export async function scopeOf(
  ctx: AppContext,
  request: FastifyRequest,
  branchOverride?: string,
): Promise<Scope> {
  const { principal, project, branch } = requireScope(request);
  let branchId = branch.id;
  if (branchOverride) {
    const found = await ctx.db
      .selectFrom('branches')
      .select('id')
      .where('id', '=', branchOverride)
      .where('projectId', '=', project.id)
      .executeTakeFirst();
    if (!found) throw notFound('Branch not found');
    branchId = found.id;
  }
  return { organizationId: principal.organizationId, projectId: project.id, branchId };
}

export async function testsRoutes(parent: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const service = new TestsService(ctx.db, ctx.blobs, ctx.clock, ctx.database.reads);
  const transfer = new TransferService(ctx.db, ctx.blobs, ctx.clock, service);

  app.get('/v1/tests', { schema: { tags, querystring: listTestsQuery } }, async (request) => {
    const scope = await scopeOf(ctx, request, request.query.branch);
    return service.list(scope, request.query);
  });

  app.post('/v1/tests', { schema: { tags, consumes: ['multipart/form-data'] } }, async (request) => {
    const scope = await scopeOf(ctx, request);
    const form = await readForm(request);
    return {
      data: await service.create(scope, parseJsonField(form.fields.testData, 'testData'), form.files),
    };
  });

  app.post(
    '/v1/tests/bulk-update-status',
    { schema: { tags, body: bulkUpdateStatusBody } },
    async (request) => {
      await service.bulkUpdateStatus(await scopeOf(ctx, request), request.body.testIds, request.body.status);
      return { data: null };
    },
  );

  app.post('/v1/tests/bulk-update-tags', { schema: { tags, body: bulkUpdateTagsBody } }, async (request) => {
    await service.bulkUpdateTags(await scopeOf(ctx, request), request.body.testIds, request.body.tagIds);
    return { data: null };
  });

  app.post('/v1/tests/bulk-delete', { schema: { tags, body: bulkDeleteBody } }, async (request) => {
    await service.delete(await scopeOf(ctx, request), request.body.testIds);
    return { data: null };
  });

  app.post('/v1/tests/export', { schema: { tags, body: exportTestsBody } }, async (request, reply) => {
    const result = await transfer.export(await scopeOf(ctx, request), request.body);
    reply.header('content-disposition', `attachment; filename="${result.filename}"`);
    return reply.type('application/zip').send(result.zip);
  });

  app.post('/v1/tests/import', { schema: { tags, consumes: ['multipart/form-data'] } }, async (request) => {
    const scope = await scopeOf(ctx, request);
    const form = await readForm(request, { fileField: 'file', maxFiles: 1 });
    return { data: await transfer.import(scope, form.files[0]?.content) };
  });

  app.get(
    '/v1/tests/:testId',
    { schema: { tags, params: testParams, querystring: z.object({ branch: uuid.optional() }) } },
    async (request) =>
      service.detail(await scopeOf(ctx, request, request.query.branch), request.params.testId),
  );

  app.get(
    '/v1/tests/:testId/steps',
    { schema: { tags, params: testParams, querystring: z.object({ revisionId: uuid.optional() }) } },
    async (request) => ({
      data: {
        steps: await service.steps(
          await scopeOf(ctx, request),
          request.params.testId,
          request.query.revisionId,
        ),
      },
    }),
  );

  app.get(
    '/v1/tests/:testId/steps/:stepId',
    { schema: { tags, params: z.object({ testId: uuid, stepId: uuid }) } },
    async (request) => ({
      data: await service.step(await scopeOf(ctx, request), request.params.testId, request.params.stepId),
    }),
  );

  app.get('/v1/tests/:testId/files', { schema: { tags, params: testParams } }, async (request) => ({
    data: await service.files(await scopeOf(ctx, request), request.params.testId),
  }));

  app.get('/v1/tests/:testId/revisions', { schema: { tags, params: testParams } }, async (request) => ({
    data: await service.revisions(await scopeOf(ctx, request), request.params.testId),
  }));

  app.get(
    '/v1/tests/:testId/revisions/:revisionId',
    { schema: { tags, params: z.object({ testId: uuid, revisionId: uuid }) } },
    async (request) => ({
      data: await service.revision(
        await scopeOf(ctx, request),
        request.params.testId,
        request.params.revisionId,
      ),
    }),
  );

  app.post(
    '/v1/tests/:testId/revisions',
    { schema: { tags, params: testParams, body: createRevisionBody } },
    async (request) => ({
      data: await service.saveRevision(
        await scopeOf(ctx, request),
        request.params.testId,
        request.body.message,
      ),
    }),
  );

  app.put(
    '/v1/tests/:testId',
    { schema: { tags, params: testParams, consumes: ['multipart/form-data'] } },
    async (request) => {
      const scope = await scopeOf(ctx, request);
      const form = await readForm(request);
      await service.update(
        scope,
        request.params.testId,
        parseJsonField(form.fields.testData, 'testData'),
        form.files,
      );
      return { data: null };
    },
  );

  app.post(
    '/v1/tests/:testId/duplicate',
    { schema: { tags, params: testParams, body: duplicateTestBody } },
    async (request) => ({
      data: await service.duplicate(await scopeOf(ctx, request), request.params.testId, request.body ?? {}),
    }),
  );

  app.delete('/v1/tests/:testId', { schema: { tags, params: testParams } }, async (request) => {
    await service.delete(await scopeOf(ctx, request), [request.params.testId]);
    return { data: null };
  });
}
