import { bulkRemoteRunBody, runConfig, testRunLatestQuery, testRunListQuery, uuid } from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { requireScope } from '../../plugins/auth/index.ts';
import {
  cancelRun,
  getRun,
  latestRun,
  listArtifacts,
  listRuns,
  listRunTests,
  reportHtml,
  runStatistics,
  toDetail,
} from './service.ts';
import { startRun } from './trigger.ts';

const tags = ['test-runs'];
const runParams = z.object({ runId: uuid });

export async function runsRoutes(parent: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const scopeOf = (request: Parameters<typeof requireScope>[0]) => {
    const { principal, project, branch } = requireScope(request);
    return {
      organizationId: principal.organizationId,
      projectId: project.id,
      branchId: branch.id,
      principal,
    };
  };

  app.post(
    '/v1/tests/:testId/remote-run',
    {
      schema: {
        tags: ['tests'],
        params: z.object({ testId: uuid }),
        body: z.object({ config: runConfig.optional() }).loose().nullish(),
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      const result = await startRun(ctx, {
        organizationId: scope.organizationId,
        projectId: scope.projectId,
        branchId: scope.branchId,
        testIds: [request.params.testId],
        config: request.body?.config,
        trigger: { type: 'apiKey', name: scope.principal.apiKeyName },
        mode: 'single',
      });
      if (result.single) return { data: { runId: result.runId, status: result.status } };
      const { runId, status, totalTests, message } = result;
      return { data: { runId, status, totalTests, message } };
    },
  );

  app.post(
    '/v1/tests/remote-run',
    { schema: { tags: ['tests'], body: bulkRemoteRunBody } },
    async (request) => {
      const scope = scopeOf(request);
      const result = await startRun(ctx, {
        organizationId: scope.organizationId,
        projectId: scope.projectId,
        branchId: scope.branchId,
        testIds: request.body.testIds,
        tagId: request.body.tagId,
        config: request.body.config,
        trigger: { type: 'apiKey', name: scope.principal.apiKeyName },
        mode: 'bulk',
      });
      const { runId, status, totalTests, message } = result;
      return { data: { runId, status, totalTests, message } };
    },
  );

  app.get('/v1/test-runs', { schema: { tags, querystring: testRunListQuery } }, async (request) =>
    listRuns(ctx, scopeOf(request), request.query),
  );
  app.get('/v1/test-runs/latest', { schema: { tags, querystring: testRunLatestQuery } }, async (request) => ({
    data: await latestRun(ctx, scopeOf(request), request.query),
  }));
  app.get('/v1/test-runs/stats', { schema: { tags, querystring: testRunLatestQuery } }, async (request) => ({
    data: await runStatistics(ctx, scopeOf(request), request.query),
  }));
  app.get('/v1/test-runs/:runId', { schema: { tags, params: runParams } }, async (request) => ({
    data: toDetail(await getRun(ctx, scopeOf(request), request.params.runId)),
  }));
  app.get('/v1/test-runs/:runId/tests', { schema: { tags, params: runParams } }, async (request) => ({
    data: await listRunTests(ctx, scopeOf(request), request.params.runId),
  }));
  app.get('/v1/test-runs/:runId/artifacts', { schema: { tags, params: runParams } }, async (request) => ({
    data: await listArtifacts(ctx, scopeOf(request), request.params.runId),
  }));
  app.get('/v1/test-runs/:runId/report', { schema: { tags, params: runParams } }, async (request, reply) => {
    const html = await reportHtml(ctx, scopeOf(request), request.params.runId);
    return reply.type('text/html; charset=utf-8').send(html);
  });
  app.post('/v1/test-runs/:runId/cancel', { schema: { tags, params: runParams } }, async (request) => ({
    data: await cancelRun(ctx, scopeOf(request), request.params.runId),
  }));
}
