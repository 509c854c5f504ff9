import { runReport, useLocatorBody, useLocatorResponse, uuid } from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { readJson } from '../../adapters/db/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import { replaceStepSelector } from '../tests/public.ts';
import { findRun } from './repository.ts';

/**
 * "Use this locator" on a run page: one of the locator suggestions a run recorded for a failed
 * step becomes that step's selector in the test's working revision (on the run's branch). Only
 * the run's own suggestions can be applied, and only by someone of the run's organization who
 * may edit tests.
 */
export async function healRoutes(parent: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/console/v1/test-runs/:runId/tests/:testId/steps/:stepId/use-locator',
    {
      config: { access: session('change') },
      schema: {
        tags: ['console'],
        summary: "Use one of a run's locator suggestions as the step's selector",
        description:
          "Writes the test's working revision with the step's selector replaced (unsaved, edit version + 1). " +
          '409 TEST_CHANGED_SINCE_RUN when the working revision no longer holds the step with the selector the run failed on.',
        params: z.object({ runId: uuid, testId: uuid, stepId: z.string().min(1).max(200) }),
        body: useLocatorBody,
        response: { 200: useLocatorResponse },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { runId, testId, stepId } = request.params;
      const run = await findRun(ctx.db, runId);
      if (!run || run.organizationId !== user.organizationId) throw appError('RUN_NOT_FOUND');
      const report = readJson(runReport.nullable(), run.report, null, `runs ${run.id}/report`);
      const found = report?.runTypeInfo.testResults.find(
        (test) => test.testId === testId && test.locatorSuggestions?.stepId === stepId,
      )?.locatorSuggestions;
      if (!found) throw appError('LOCATOR_SUGGESTIONS_NOT_FOUND');
      const wanted = request.body.locator.trim();
      const suggestion = found.suggestions.find(
        (candidate) => candidate.selector === wanted || candidate.locator === wanted,
      );
      if (!suggestion) throw appError('LOCATOR_NOT_SUGGESTED', wanted);
      const written = await replaceStepSelector(
        ctx,
        { organizationId: run.organizationId, projectId: run.projectId, branchId: run.branchId },
        { testId, stepId, from: found.from, to: suggestion.selector },
      );
      return { data: { testId, stepId, ...written } };
    },
  );
}
