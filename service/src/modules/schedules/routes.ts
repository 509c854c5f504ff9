import {
  cronPreviewQuery,
  cronPreviewResponse,
  environmentName,
  noPayloadResponse,
  runConfig,
  scheduleListResponse,
  scheduleResponse,
  scheduleTriggerResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { apiKeyOnly, session } from '../../plugins/auth/access.ts';
import { requireApiKey, requireUser } from '../../plugins/auth/index.ts';
import { auditEntryOf } from '../audit/public.ts';
import { nextTicks, validateCron } from './cron.ts';
import type { SchedulesService } from './service.ts';

const name = z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters');
const cron = z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters');
const timezone = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters');
const testIds = z
  .array(uuid, { error: 'testIds must be an array of test IDs' })
  .min(1, 'must contain at least one test ID')
  .max(100, 'must contain at most 100 test IDs');
const listQuery = z.object({ projectId: uuid.optional() });
const scheduleParams = z.object({ scheduleId: uuid });
const idParams = z.object({ id: uuid });

const createBody = z.object({
  name,
  projectId: uuid,
  branchId: uuid.optional(),
  testIds: testIds.optional(),
  tagId: uuid.optional(),
  cron,
  timezone: timezone.optional(),
  config: runConfig.optional(),
  enabled: z.boolean({ error: 'enabled must be a boolean' }).optional(),
  presetId: uuid.optional(),
  environment: environmentName.optional(),
});
const updateBody = z.object({
  name: name.optional(),
  branchId: uuid.optional(),
  testIds: testIds.optional(),
  tagId: uuid.optional(),
  cron: cron.optional(),
  timezone: timezone.optional(),
  config: runConfig.nullable().optional(),
  enabled: z.boolean({ error: 'enabled must be a boolean' }).optional(),
  presetId: uuid.nullable().optional(),
  environment: environmentName.nullable().optional(),
});

export async function schedulesRoutes(
  parent: FastifyInstance,
  ctx: AppContext,
  service: SchedulesService,
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const tags = ['schedules'];

  // API key: organization-scoped (no x-project-id); `projectId` narrows the list.
  app.get(
    '/v1/schedules',
    {
      config: { access: apiKeyOnly(['schedules:read']) },
      schema: {
        summary: 'List schedules',
        response: { 200: scheduleListResponse },
        tags,
        querystring: listQuery,
      },
    },
    async (request) => ({
      data: await service.list(requireApiKey(request).organizationId, request.query.projectId),
    }),
  );
  app.get(
    '/v1/schedules/:scheduleId',
    {
      config: { access: apiKeyOnly(['schedules:read']) },
      schema: {
        summary: 'Read a schedule',
        response: { 200: scheduleResponse },
        tags,
        params: scheduleParams,
      },
    },
    async (request) => ({
      data: await service.get(requireApiKey(request).organizationId, request.params.scheduleId),
    }),
  );
  app.post(
    '/v1/schedules/:scheduleId/trigger',
    {
      config: { access: apiKeyOnly(['schedules:read', 'schedules:run'], { license: true }) },
      schema: {
        summary: 'Run a schedule now',
        'x-errors': { 429: 'Rate limited, or the concurrency limit.' },
        response: { 200: scheduleTriggerResponse },
        tags,
        params: scheduleParams,
      },
    },
    async (request) => {
      const started = await service.trigger(
        requireApiKey(request).organizationId,
        request.params.scheduleId,
        auditEntryOf(request),
      );
      return {
        data: {
          runId: started.runId,
          status: started.status,
          totalTests: started.totalTests,
          message: started.message,
        },
      };
    },
  );
  app.post(
    '/v1/schedules/:scheduleId/disable',
    {
      config: { access: apiKeyOnly(['schedules:read', 'schedules:pause'], { license: true }) },
      schema: {
        summary: 'Pause a schedule',
        response: { 200: scheduleResponse },
        tags,
        params: scheduleParams,
      },
    },
    async (request) => ({
      data: await service.disable(requireApiKey(request).organizationId, request.params.scheduleId),
    }),
  );
  app.post(
    '/v1/schedules/:scheduleId/enable',
    {
      config: { access: apiKeyOnly(['schedules:read', 'schedules:resume'], { license: true }) },
      schema: {
        summary: 'Resume a schedule',
        response: { 200: scheduleResponse },
        tags,
        params: scheduleParams,
      },
    },
    async (request) => ({
      data: await service.enable(requireApiKey(request).organizationId, request.params.scheduleId),
    }),
  );

  // Console session: creating, editing and deleting schedules.
  const consoleTags = ['console'];
  // The schedule form's preview of the next firings.
  app.get(
    '/console/v1/schedules/preview',
    {
      config: { access: session('read') },
      schema: {
        summary: 'Preview the next five firings of a cron expression in a time zone',
        response: { 200: cronPreviewResponse },
        tags: consoleTags,
        querystring: cronPreviewQuery,
      },
    },
    async (request) => {
      const { cron, timezone } = request.query;
      validateCron(cron, timezone);
      return { data: { nextRuns: nextTicks(cron, timezone, ctx.clock.now(), 5) } };
    },
  );
  app.post(
    '/console/v1/schedules',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Create a schedule',
        response: { 201: scheduleResponse },
        tags: consoleTags,
        body: createBody,
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      if (!user.subscriptionActive) throw appError('SCHEDULE_SUBSCRIPTION_LAPSED');
      const schedule = await service.create(user.organizationId, request.body);
      return reply.code(201).send({ data: schedule });
    },
  );
  app.get(
    '/console/v1/schedules',
    {
      config: { access: session('read') },
      schema: {
        summary: 'List schedules (console)',
        response: { 200: scheduleListResponse },
        tags: consoleTags,
        querystring: listQuery,
      },
    },
    async (request) => ({
      data: await service.list(requireUser(request).organizationId, request.query.projectId),
    }),
  );
  app.put(
    '/console/v1/schedules/:id',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Update a schedule',
        response: { 200: scheduleResponse },
        tags: consoleTags,
        params: idParams,
        body: updateBody,
      },
    },
    async (request) => {
      const user = requireUser(request);
      if (request.body.enabled === true && !user.subscriptionActive)
        throw appError('SCHEDULE_SUBSCRIPTION_LAPSED');
      return { data: await service.update(user.organizationId, request.params.id, request.body) };
    },
  );
  app.delete(
    '/console/v1/schedules/:id',
    {
      config: { access: session('change') },
      schema: {
        summary: 'Delete a schedule',
        response: { 200: noPayloadResponse },
        tags: consoleTags,
        params: idParams,
      },
    },
    async (request) => {
      await service.remove(requireUser(request).organizationId, request.params.id);
      return { data: null };
    },
  );
  // Administration: "trigger now" on the schedules page, as POST /v1/schedules/:id/trigger.
  app.post(
    '/console/v1/schedules/:id/trigger',
    {
      // Members start runs from the console (as on /v1): triggering a schedule is one of those.
      config: { access: session('read') },
      schema: {
        summary: 'Run a schedule now (console)',
        'x-errors': { 429: 'Rate limited, or the concurrency limit.' },
        response: { 200: scheduleTriggerResponse },
        tags: consoleTags,
        params: idParams,
      },
    },
    async (request) => {
      const user = requireUser(request);
      // The same subscription rule as the API key route.
      if (!user.subscriptionActive) throw appError('LICENSE_REQUIRED');
      const started = await service.trigger(user.organizationId, request.params.id, auditEntryOf(request));
      return {
        data: {
          runId: started.runId,
          status: started.status,
          totalTests: started.totalTests,
          message: started.message,
        },
      };
    },
  );
}
