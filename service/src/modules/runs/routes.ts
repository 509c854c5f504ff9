import {
  bulkRemoteRunBody,
  cancelRunResponse,
  latestRunResponse,
  remoteRunManyResponse,
  remoteRunResponse,
  runArtifactsResponse,
  runStatisticsResponse,
  runTestsResponse,
  singleRemoteRunBody,
  testRunDetailResponse,
  testRunLatestQuery,
  testRunListQuery,
  testRunListResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { projectRead, runControl } from '../../plugins/auth/access.ts';
import { requireCallerScope } from '../../plugins/auth/index.ts';
import { binaryResponse } from '../../plugins/openapi.ts';
import { auditEntryOf } from '../audit/public.ts';
import { batchesOf, shardsOf } from './batches-repository.ts';
import { withFailureTriage } from './report-triage.ts';
import { withVisualImageUrls } from './report-visual.ts';
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
import { type RunTrigger, startRun } from './trigger.ts';

const tags = ['test-runs'];
const runParams = z.object({ runId: uuid });

export async function runsRoutes(parent: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  /** Who started a run: the key's name, or the signed-in console user's email. */
  const triggerOf = (principal: ReturnType<typeof requireCallerScope>['principal']): RunTrigger =>
    principal.kind === 'apiKey'
      ? { type: 'apiKey', name: principal.apiKeyName }
      : { type: 'manual', email: principal.email };
  const scopeOf = (request: Parameters<typeof requireCallerScope>[0]) => {
    const { principal, project, branch } = requireCallerScope(request);
    return {
      organizationId: principal.organizationId,
      projectId: project.id,
      branchId: branch.id,
      principal,
    };
  };

  /** Presets are a console resource (spec): API keys pass `config`. */
  const refusePresetOfKey = (scope: ReturnType<typeof scopeOf>, presetId: string | undefined) => {
    if (presetId && scope.principal.kind === 'apiKey') throw appError('PRESET_REQUIRES_SESSION');
  };

  app.post(
    '/v1/tests/:testId/remote-run',
    {
      config: { access: runControl('tests:read', 'tests:run') },
      schema: {
        tags: ['tests'],
        summary: 'Run a test or directory',
        params: z.object({ testId: uuid }),
        body: singleRemoteRunBody.nullish(),
        'x-optional-body': true,
        'x-errors': {
          409: 'The test already has a pending, queued or running run.',
          429: 'Rate limited, a 10 s per-test cooldown, or the concurrency limit.',
        },
        response: { 200: remoteRunResponse },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      refusePresetOfKey(scope, request.body?.presetId);
      const result = await startRun(ctx, {
        organizationId: scope.organizationId,
        projectId: scope.projectId,
        branchId: scope.branchId,
        testIds: [request.params.testId],
        config: request.body?.config,
        presetId: request.body?.presetId,
        environment: request.body?.environment,
        trigger: triggerOf(scope.principal),
        mode: 'single',
        source: request.body?.metadata,
        audit: auditEntryOf(request),
      });
      if (result.single) return { data: { runId: result.runId, status: result.status } };
      const { runId, status, totalTests, message, leftOut } = result;
      return { data: { runId, status, totalTests, message, leftOut } };
    },
  );

  app.post(
    '/v1/tests/remote-run',
    {
      config: { access: runControl('tests:read', 'tests:run') },
      schema: {
        tags: ['tests'],
        summary: 'Run several tests',
        body: bulkRemoteRunBody,
        'x-errors': { 429: 'Rate limited, a 10 s per-organization cooldown, or the concurrency limit.' },
        response: { 200: remoteRunManyResponse },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      refusePresetOfKey(scope, request.body.presetId);
      const result = await startRun(ctx, {
        organizationId: scope.organizationId,
        projectId: scope.projectId,
        branchId: scope.branchId,
        testIds: request.body.testIds,
        tagId: request.body.tagId,
        config: request.body.config,
        presetId: request.body.presetId,
        environment: request.body.environment,
        trigger: triggerOf(scope.principal),
        mode: 'bulk',
        source: request.body.metadata,
        audit: auditEntryOf(request),
      });
      const { runId, status, totalTests, message, leftOut } = result;
      return { data: { runId, status, totalTests, message, leftOut } };
    },
  );

  app.get(
    '/v1/test-runs',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'List runs',
        querystring: testRunListQuery,
        response: { 200: testRunListResponse },
      },
    },
    async (request) => listRuns(ctx, scopeOf(request), request.query),
  );
  app.get(
    '/v1/test-runs/latest',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'Read the latest run',
        querystring: testRunLatestQuery,
        response: { 200: latestRunResponse },
      },
    },
    async (request) => ({
      data: await latestRun(ctx, scopeOf(request), request.query),
    }),
  );
  app.get(
    '/v1/test-runs/stats',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'Read run statistics',
        querystring: testRunLatestQuery,
        response: { 200: runStatisticsResponse },
      },
    },
    async (request) => ({
      data: await runStatistics(ctx, scopeOf(request), request.query),
    }),
  );
  app.get(
    '/v1/test-runs/:runId',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'Read a run and its report',
        params: runParams,
        response: { 200: testRunDetailResponse },
      },
    },
    async (request) => {
      const run = await getRun(ctx, scopeOf(request), request.params.runId);
      const shards = await shardsOf(ctx.db, run.id);
      const batches = shards.length > 0 ? await batchesOf(ctx.db, run.id) : [];
      const detail = toDetail(run);
      return {
        data: {
          ...detail,
          report: await withVisualImageUrls(ctx, run, await withFailureTriage(ctx, run, detail.report)),
          ...(shards.length > 0 ? { shards } : {}),
          ...(batches.length > 0 ? { batches } : {}),
        },
      };
    },
  );
  app.get(
    '/v1/test-runs/:runId/tests',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'List the tests of a run',
        params: runParams,
        response: { 200: runTestsResponse },
      },
    },
    async (request) => ({
      data: await listRunTests(ctx, scopeOf(request), request.params.runId),
    }),
  );
  app.get(
    '/v1/test-runs/:runId/artifacts',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'List the artifacts of a run',
        params: runParams,
        response: { 200: runArtifactsResponse },
      },
    },
    async (request) => ({
      data: await listArtifacts(ctx, scopeOf(request), request.params.runId),
    }),
  );
  app.get(
    '/v1/test-runs/:runId/report',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'Read the HTML report of a run',
        params: runParams,
        response: { 200: binaryResponse('text/html', 'The HTML report.') },
      },
    },
    async (request, reply) => {
      const html = await reportHtml(ctx, scopeOf(request), request.params.runId);
      return reply.type('text/html; charset=utf-8').send(html);
    },
  );
  app.post(
    '/v1/test-runs/:runId/cancel',
    {
      config: { access: runControl('testRuns:read', 'tests:cancel') },
      schema: { tags, summary: 'Cancel a run', params: runParams, response: { 200: cancelRunResponse } },
    },
    async (request) => ({
      data: await cancelRun(ctx, scopeOf(request), request.params.runId),
    }),
  );
}
