import {
  uuid,
  type VisualDecisionBody,
  visualBaselineListResponse,
  visualBaselineQuery,
  visualChangeListResponse,
  visualDecisionBody,
  visualDecisionResponse,
} from '@stepdeck/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectRead, runControl } from '../../plugins/auth/access.ts';
import { requireCallerScope } from '../../plugins/auth/index.ts';
import { binaryResponse } from '../../plugins/openapi.ts';
import type { VisualService } from './service.ts';

const tags = ['test-runs'];
const runParams = z.object({ runId: uuid });
const png = binaryResponse('image/png', 'The picture (PNG).');

/** Who decided: the signed-in user's email, or the API key's name. */
function deciderOf(request: FastifyRequest): { organizationId: string; who: string } {
  const { principal } = requireCallerScope(request);
  return {
    organizationId: principal.organizationId,
    who: principal.kind === 'user' ? principal.email : `API key ${principal.apiKeyName}`,
  };
}

export async function visualRoutes(parent: FastifyInstance, service: VisualService): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/test-runs/:runId/visual-changes',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: "List a run's visual changes (screenshots that are not their baseline)",
        params: runParams,
        response: { 200: visualChangeListResponse },
      },
    },
    async (request) => {
      const { principal } = requireCallerScope(request);
      const changes = await service.listForRun(principal.organizationId, request.params.runId);
      return {
        data: changes,
        summary: {
          new: changes.filter((change) => change.status === 'new').length,
          changed: changes.filter((change) => change.status === 'changed').length,
          pending: changes.filter((change) => change.decision === 'pending').length,
        },
      };
    },
  );

  const decisionOptions = (decision: 'approved' | 'rejected') => ({
    config: { access: runControl('tests:update') },
    schema: {
      tags,
      summary:
        decision === 'approved'
          ? "Approve a run's visual changes: each screenshot becomes its branch's baseline"
          : "Reject a run's visual changes: the baseline stays, the step keeps failing",
      params: runParams,
      body: visualDecisionBody,
      response: { 200: visualDecisionResponse },
    },
  });
  const decisionHandler =
    (decision: 'approved' | 'rejected') =>
    async (request: FastifyRequest<{ Params: { runId: string }; Body: VisualDecisionBody }>) => {
      const { organizationId, who } = deciderOf(request);
      const changes = await service.decide(
        organizationId,
        request.params.runId,
        request.body?.changeIds,
        decision,
        who,
      );
      request.auditDetail = `${decision} ${changes.length} visual change(s): ${changes
        .map((change) => `${change.testName} › ${change.stepName} (${change.browser} ${change.viewport})`)
        .join(', ')}`.slice(0, 1000);
      return { data: { decision, changes } };
    };
  app.post(
    '/v1/test-runs/:runId/visual-changes/approve',
    decisionOptions('approved'),
    decisionHandler('approved'),
  );
  app.post(
    '/v1/test-runs/:runId/visual-changes/reject',
    decisionOptions('rejected'),
    decisionHandler('rejected'),
  );

  app.get(
    '/v1/visual-changes/:changeId/images/:kind',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags,
        summary: 'Download the baseline, the screenshot or the diff of a visual change',
        params: z.object({
          changeId: uuid,
          kind: z.enum(['baseline', 'actual', 'diff'], { error: 'kind must be baseline, actual or diff' }),
        }),
        response: { 200: png },
      },
    },
    async (request, reply) => {
      const { principal } = requireCallerScope(request);
      const stream = await service.image(
        principal.organizationId,
        request.params.changeId,
        request.params.kind,
      );
      reply.header('cache-control', 'private, max-age=3600');
      return reply.type('image/png').send(stream);
    },
  );

  app.get(
    '/v1/visual-baselines',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags: ['tests'],
        summary: 'List the visual baselines of the active branch (its own and those it inherits)',
        querystring: visualBaselineQuery,
        response: { 200: visualBaselineListResponse },
      },
    },
    async (request) => {
      const { principal, project, branch } = requireCallerScope(request);
      return {
        data: await service.baselinesOf(
          { organizationId: principal.organizationId, projectId: project.id, branchId: branch.id },
          request.query.testId,
        ),
      };
    },
  );

  app.get(
    '/v1/visual-baselines/:baselineId/image',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags: ['tests'],
        summary: 'Download a visual baseline',
        params: z.object({ baselineId: uuid }),
        response: { 200: png },
      },
    },
    async (request, reply) => {
      const { principal } = requireCallerScope(request);
      const stream = await service.baselineImage(principal.organizationId, request.params.baselineId);
      return reply.type('image/png').send(stream);
    },
  );
}
