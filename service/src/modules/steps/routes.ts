import {
  deletedStepResponse,
  listSharedStepsQuery,
  replacedChildrenResponse,
  sharedStepListResponse,
  sharedStepResponse,
  stepChildrenResponse,
  stepUsageResponse,
  updatedStepResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { projectChange, projectRead } from '../../plugins/auth/access.ts';
import { filePart, multipartBody } from '../../plugins/openapi.ts';
import { parseJsonField, readForm, scopeOf } from '../tests/public.ts';
import type { StepsService } from './service.ts';

const tags = ['steps'];
const params = z.object({ stepId: uuid });

export async function stepsRoutes(
  parent: FastifyInstance,
  ctx: AppContext,
  service: StepsService,
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/steps/shared',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        summary: 'List shared steps',
        response: { 200: sharedStepListResponse },
        tags,
        querystring: listSharedStepsQuery,
      },
    },
    async (request) => service.listShared(await scopeOf(ctx, request), request.query),
  );
  app.get(
    '/v1/steps/:stepId',
    {
      config: { access: projectRead('tests:read') },
      schema: { summary: 'Read a shared step', response: { 200: sharedStepResponse }, tags, params },
    },
    async (request) => ({
      data: await service.get(await scopeOf(ctx, request), request.params.stepId),
    }),
  );
  app.get(
    '/v1/steps/:stepId/children',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        summary: 'Read a step group and its children',
        response: { 200: stepChildrenResponse },
        tags,
        params,
      },
    },
    async (request) => ({
      data: await service.children(await scopeOf(ctx, request), request.params.stepId),
    }),
  );
  app.get(
    '/v1/steps/:stepId/usage',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        summary: 'List the tests that use a step',
        response: { 200: stepUsageResponse },
        tags,
        params,
      },
    },
    async (request) => ({
      data: await service.usage(await scopeOf(ctx, request), request.params.stepId),
    }),
  );
  app.put(
    '/v1/steps/:stepId/update',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        summary: 'Update a step',
        response: { 200: updatedStepResponse },
        'x-multipart': multipartBody(
          z.object({
            stepData: z
              .string()
              .describe('The step fields as a JSON string (`name`, `action`, `metadata`, `condition`).'),
            files: z.array(filePart()).max(1).optional(),
          }),
        ),
        tags,
        params,
      },
    },
    async (request) => {
      const scope = await scopeOf(ctx, request);
      const form = await readForm(request, { maxFiles: 1 });
      return {
        data: await service.update(
          scope,
          request.params.stepId,
          parseJsonField(form.fields.stepData, 'stepData'),
          form.files,
        ),
      };
    },
  );
  app.put(
    '/v1/steps/:stepId/children',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        summary: 'Replace the children of a step group',
        response: { 200: replacedChildrenResponse },
        'x-multipart': multipartBody(
          z.object({
            children: z.string().describe('The children as a JSON array string.'),
            files: z.array(filePart()).optional(),
          }),
        ),
        tags,
        params,
      },
    },
    async (request) => {
      const scope = await scopeOf(ctx, request);
      const form = await readForm(request);
      return {
        data: await service.replaceChildren(
          scope,
          request.params.stepId,
          parseJsonField(form.fields.children, 'children'),
          form.files,
        ),
      };
    },
  );
  app.delete(
    '/v1/steps/:stepId',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: { summary: 'Delete a step', response: { 200: deletedStepResponse }, tags, params },
    },
    async (request) => ({
      message: 'Step deleted',
      data: await service.delete(await scopeOf(ctx, request), request.params.stepId),
    }),
  );
}
