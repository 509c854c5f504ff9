import {
  noPayloadResponse,
  quarantineBody,
  runTriageResponse,
  testHistoryQuery,
  testHistoryResponse,
  testInsightsQuery,
  testInsightsResponse,
  testQuarantineResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { projectChange, projectRead } from '../../plugins/auth/access.ts';
import { requireCallerScope } from '../../plugins/auth/index.ts';
import type { HistoryScope, HistoryService } from './service.ts';

const testParams = z.object({ testId: uuid });
const runParams = z.object({ runId: uuid });

function scopeOf(request: FastifyRequest): HistoryScope & { actor: string } {
  const { principal, project } = requireCallerScope(request);
  return {
    organizationId: principal.organizationId,
    projectId: project.id,
    actor: principal.kind === 'apiKey' ? principal.apiKeyName : principal.email,
  };
}

export async function historyRoutes(parent: FastifyInstance, service: HistoryService): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/tests/:testId/history',
    {
      config: { access: projectRead('tests:read', 'testRuns:read') },
      schema: {
        tags: ['tests'],
        summary: "A test's results across runs",
        description:
          'Newest first, paginated; `branch` (a branch id or name), `status` and `since` filter. ' +
          '`summary` is derived from the latest `window` results under the branch and since filters.',
        params: testParams,
        querystring: testHistoryQuery,
        response: { 200: testHistoryResponse },
      },
    },
    async (request) => service.history(scopeOf(request), request.params.testId, request.query),
  );

  app.get(
    '/v1/test-runs/:runId/triage',
    {
      config: { access: projectRead('testRuns:read') },
      schema: {
        tags: ['test-runs'],
        summary: "A run's failures: new, known, flaky or quarantined",
        params: runParams,
        response: { 200: runTriageResponse },
      },
    },
    async (request) => ({ data: await service.triage(scopeOf(request), request.params.runId) }),
  );

  app.get(
    '/v1/test-insights',
    {
      config: { access: projectRead('tests:read', 'testRuns:read') },
      schema: {
        tags: ['tests'],
        summary: "The project's flaky, failing and quarantined tests on a branch",
        description:
          "Derived from each test's latest 20 results on the branch (`branch`: an id or a name; default: " +
          "the project's default branch). Quarantined tests come with the evidence of their release: " +
          'results since they went in, passes, and the lower bound of the pass rate (95 % Wilson interval).',
        querystring: testInsightsQuery,
        response: { 200: testInsightsResponse },
      },
    },
    async (request) => ({ data: await service.health.insights(scopeOf(request), request.query) }),
  );

  app.put(
    '/v1/tests/:testId/quarantine',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        tags: ['tests'],
        summary: 'Put a test in quarantine',
        description:
          'A quarantined test still runs and is reported (run status, webhooks unchanged); the action and ' +
          'CLI leave its failures out of `fail-on`. Replaces an existing quarantine.',
        params: testParams,
        body: quarantineBody,
        response: { 200: testQuarantineResponse },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      return { data: await service.quarantine(scope, request.params.testId, request.body, scope.actor) };
    },
  );

  app.delete(
    '/v1/tests/:testId/quarantine',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        tags: ['tests'],
        summary: 'Release a test from quarantine',
        params: testParams,
        'x-errors': { 404: 'The test is not in quarantine.' },
        response: { 200: noPayloadResponse },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      await service.release(scope, request.params.testId, scope.actor);
      return { data: null };
    },
  );
}
