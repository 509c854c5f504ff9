import { Readable } from 'node:stream';
import {
  bulkDeleteBody,
  bulkUpdateStatusBody,
  bulkUpdateTagsBody,
  createdTest,
  createRevisionBody,
  dataOf,
  duplicatedTestResponse,
  duplicateTestBody,
  exportTestsBody,
  importResponse,
  listTestsQuery,
  listTestsResponse,
  noPayloadResponse,
  revisionDetailResponse,
  revisionResponse,
  revisionsResponse,
  testDetailResponse,
  testFilesResponse,
  testStepResponse,
  testStepsResponse,
  uuid,
} from '@stepdeck/contract';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { projectChange, projectRead } from '../../plugins/auth/access.ts';
import { binaryResponse, filePart, multipartBody } from '../../plugins/openapi.ts';
import { readForm } from './multipart.ts';
import { scopeOf } from './scope.ts';
import { parseJsonField, type TestsService } from './service.ts';
import type { TransferService } from './transfer.ts';

const tags = ['tests'];

/**
 * Sends a body the service serialized itself (step trees, `stepsJson`): Fastify passes a string
 * or stream with a JSON content type through as is, so the route's response schema documents it
 * only. A large body is streamed piece by piece: written as one string, its conversion to bytes
 * alone would hold the event loop (some 300 ms for 19 MB).
 */
const sendJson = (reply: FastifyReply, pieces: string[]) => {
  reply.type('application/json; charset=utf-8');
  const size = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return reply.send(size <= streamAboveChars ? pieces.join('') : Readable.from(pieces));
};
const streamAboveChars = 1024 * 1024;
const testParams = z.object({ testId: uuid });
/** The form of `POST /v1/tests` and `PUT /v1/tests/:testId`. */
const testForm = multipartBody(
  z.object({
    testData: z.string().describe('The test as a JSON string (`name`, `status`, `steps`, …).'),
    files: z.array(filePart()).optional().describe('Uploads for `setInputFiles` steps.'),
  }),
);

export async function testsRoutes(
  parent: FastifyInstance,
  ctx: AppContext,
  { service, transfer }: { service: TestsService; transfer: TransferService },
): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/tests',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'List tests',
        querystring: listTestsQuery,
        response: { 200: listTestsResponse },
      },
    },
    async (request) => {
      const scope = await scopeOf(ctx, request, request.query.branch);
      return service.list(scope, request.query);
    },
  );

  app.post(
    '/v1/tests',
    {
      config: { access: projectChange('tests:read', 'tests:create') },
      schema: {
        tags,
        summary: 'Create a test',
        consumes: ['multipart/form-data'],
        'x-multipart': testForm,
        response: { 200: dataOf(createdTest) },
      },
    },
    async (request) => {
      const scope = await scopeOf(ctx, request);
      const form = await readForm(request);
      return {
        data: await service.create(scope, parseJsonField(form.fields.testData, 'testData'), form.files),
      };
    },
  );

  app.post(
    '/v1/tests/bulk-update-status',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        tags,
        summary: 'Set the status of tests',
        body: bulkUpdateStatusBody,
        response: { 200: noPayloadResponse },
      },
    },
    async (request) => {
      await service.bulkUpdateStatus(await scopeOf(ctx, request), request.body.testIds, request.body.status);
      return { data: null };
    },
  );

  app.post(
    '/v1/tests/bulk-update-tags',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        tags,
        summary: 'Replace the tags of tests',
        body: bulkUpdateTagsBody,
        response: { 200: noPayloadResponse },
      },
    },
    async (request) => {
      await service.bulkUpdateTags(await scopeOf(ctx, request), request.body.testIds, request.body.tagIds);
      return { data: null };
    },
  );

  app.post(
    '/v1/tests/bulk-delete',
    {
      config: { access: projectChange('tests:read', 'tests:delete') },
      schema: { tags, summary: 'Delete tests', body: bulkDeleteBody, response: { 200: noPayloadResponse } },
    },
    async (request) => {
      await service.delete(await scopeOf(ctx, request), request.body.testIds);
      return { data: null };
    },
  );

  app.post(
    '/v1/tests/export',
    {
      // Export reads only, so it needs no subscription.
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'Export tests as a ZIP',
        body: exportTestsBody,
        response: { 200: binaryResponse('application/zip', 'The export archive.') },
      },
    },
    async (request, reply) => {
      const result = await transfer.export(await scopeOf(ctx, request), request.body);
      reply.header('content-disposition', `attachment; filename="${result.filename}"`);
      return reply.type('application/zip').send(result.zip);
    },
  );

  app.post(
    '/v1/tests/import',
    {
      config: { access: projectChange('tests:read', 'tests:create') },
      schema: {
        tags,
        summary: 'Import tests from an export ZIP',
        consumes: ['multipart/form-data'],
        'x-multipart': multipartBody(
          z.object({ file: filePart().describe('A ZIP produced by the export.') }),
        ),
        response: { 200: importResponse },
      },
    },
    async (request) => {
      const scope = await scopeOf(ctx, request);
      const form = await readForm(request, { fileField: 'file', maxFiles: 1 });
      return { data: await transfer.import(scope, form.files[0]?.content) };
    },
  );

  app.get(
    '/v1/tests/:testId',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'Read a test',
        params: testParams,
        querystring: z.object({ branch: uuid.optional() }),
        response: { 200: testDetailResponse },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await service.detail(await scopeOf(ctx, request, request.query.branch), request.params.testId),
      ),
  );

  app.get(
    '/v1/tests/:testId/steps',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'Read the step tree of a test',
        params: testParams,
        querystring: z.object({ revisionId: uuid.optional() }),
        response: { 200: testStepsResponse },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await service.steps(await scopeOf(ctx, request), request.params.testId, request.query.revisionId),
      ),
  );

  app.get(
    '/v1/tests/:testId/steps/:stepId',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'Read a step of a test',
        params: z.object({ testId: uuid, stepId: uuid }),
        response: { 200: testStepResponse },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await service.step(await scopeOf(ctx, request), request.params.testId, request.params.stepId),
      ),
  );

  app.get(
    '/v1/tests/:testId/files',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'List the file attachments of a test',
        params: testParams,
        response: { 200: testFilesResponse },
      },
    },
    async (request) => ({
      data: await service.files(await scopeOf(ctx, request), request.params.testId),
    }),
  );

  app.get(
    '/v1/tests/:testId/revisions',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'List the saved revisions of a test',
        params: testParams,
        response: { 200: revisionsResponse },
      },
    },
    async (request) => ({
      data: await service.revisions(await scopeOf(ctx, request), request.params.testId),
    }),
  );

  app.get(
    '/v1/tests/:testId/revisions/:revisionId',
    {
      config: { access: projectRead('tests:read') },
      schema: {
        tags,
        summary: 'Read a saved revision',
        params: z.object({ testId: uuid, revisionId: uuid }),
        response: { 200: revisionDetailResponse },
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        await service.revision(await scopeOf(ctx, request), request.params.testId, request.params.revisionId),
      ),
  );

  app.post(
    '/v1/tests/:testId/revisions',
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        tags,
        summary: 'Save a revision',
        params: testParams,
        body: createRevisionBody,
        response: { 200: revisionResponse },
      },
    },
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
    {
      config: { access: projectChange('tests:read', 'tests:update') },
      schema: {
        tags,
        summary: 'Update a test',
        description:
          'Only the `testData` fields present change. Extension of the spec: `testData.parentTestId` ' +
          '(UUID, or null for the top level) moves the test with its descendants into that directory; ' +
          '404 when the directory is not on the branch, 400 when the target is not a directory or is ' +
          'the test itself or one of its descendants.',
        params: testParams,
        consumes: ['multipart/form-data'],
        'x-multipart': testForm,
        'x-errors': { 409: 'Edit conflict: `editVersion` differs from the server.' },
        response: { 200: noPayloadResponse },
      },
    },
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
    {
      config: { access: projectChange('tests:read', 'tests:create') },
      schema: {
        tags,
        summary: 'Duplicate a test',
        params: testParams,
        body: duplicateTestBody,
        'x-optional-body': true,
        response: { 200: duplicatedTestResponse },
      },
    },
    async (request) => ({
      data: await service.duplicate(await scopeOf(ctx, request), request.params.testId, request.body ?? {}),
    }),
  );

  app.delete(
    '/v1/tests/:testId',
    {
      config: { access: projectChange('tests:read', 'tests:delete') },
      schema: { tags, summary: 'Delete a test', params: testParams, response: { 200: noPayloadResponse } },
    },
    async (request) => {
      await service.delete(await scopeOf(ctx, request), [request.params.testId]);
      return { data: null };
    },
  );
}
