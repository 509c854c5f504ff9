import { uuid } from '@stepdeck/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contentTypeOf } from '../../adapters/blobs/index.ts';
import type { AppContext } from '../../context.ts';
import { appError } from '../../errors.ts';
import { session } from '../../plugins/auth/access.ts';
import { requireUser } from '../../plugins/auth/index.ts';
import { binaryResponse } from '../../plugins/openapi.ts';
import { findRunOwner } from './repository.ts';

/**
 * A run's artifact through the console's own origin, for the signed-in user's organization.
 * Playwright's trace viewer loads its trace from a service worker, which can only fetch
 * same-origin URLs without CORS; going through the service works the same for the file and
 * the S3 blob backends, and needs no presigned URL in the viewer's address.
 */
export async function artifactProxyRoutes(parent: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/console/v1/test-runs/:runId/artifact',
    {
      config: { access: session('read') },
      schema: {
        tags: ['console'],
        summary: "Download one of a run's artifacts through the console's origin",
        params: z.object({ runId: uuid }),
        querystring: z.object({ key: z.string().min(1, 'must not be empty') }),
        response: {
          200: binaryResponse('application/octet-stream', 'The artifact, with its own content type.'),
        },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const key = request.query.key;
      if (key === '' || key.split('/').some((part) => part === '' || part === '.' || part === '..'))
        throw appError('ARTIFACT_KEY_NOT_OF_RUN');
      const run = await findRunOwner(ctx.db, request.params.runId);
      if (!run || run.organizationId !== user.organizationId) throw appError('RUN_NOT_FOUND');
      const stream = await ctx.blobs.stream(`runs/${run.id}/${key}`);
      if (!stream) throw appError('ARTIFACT_NOT_FOUND');
      const filename = key.split('/').pop() ?? 'artifact';
      // Artifacts are written once: a run's file never changes, but it is private to the session.
      reply.header('cache-control', 'private, max-age=3600');
      reply.header('content-disposition', `inline; filename="${filename.replaceAll('"', '')}"`);
      reply.header('x-content-type-options', 'nosniff');
      return reply.type(contentTypeOf(filename)).send(stream);
    },
  );
}
