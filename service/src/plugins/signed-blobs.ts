import type { FastifyInstance } from 'fastify';
import type { FileBlobStore } from '../adapters/blobs/file.ts';
import { contentTypeOf } from '../adapters/blobs/index.ts';
import { appError } from '../errors.ts';

/**
 * Serves presigned file-backend URLs: no API key, but a valid unexpired signature. The router
 * has already percent-decoded the key once (presign encodes each segment once), so it is used
 * as is: decoding again turned `50%25 off` into a URIError (500) and `a%2541b` into `aAb`.
 */
export function registerSignedBlobRoute(app: FastifyInstance, blobs: FileBlobStore): void {
  app.get<{ Params: { '*': string }; Querystring: { expires?: string; signature?: string } }>(
    '/blobs/*',
    { schema: { hide: true } },
    async (request, reply) => {
      const key = request.params['*'];
      const { expires, signature } = request.query;
      if (!signature || !expires || !blobs.verify(key, Number(expires), signature)) {
        throw appError('SIGNATURE_INVALID');
      }
      let stream: Awaited<ReturnType<FileBlobStore['stream']>>;
      try {
        stream = await blobs.stream(key);
      } catch (error) {
        // A signed but unsafe key (`..`, empty segments) names no artifact.
        if ((error as Error).message.startsWith('Unsafe blob key')) {
          throw appError('ARTIFACT_KEY_INVALID');
        }
        throw error;
      }
      if (!stream) throw appError('ARTIFACT_NOT_FOUND');
      const filename = key.split('/').pop() ?? 'download';
      reply.header('content-disposition', `attachment; filename="${filename.replaceAll('"', '')}"`);
      return reply.type(contentTypeOf(filename)).send(stream);
    },
  );
}
