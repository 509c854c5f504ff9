import type { Readable } from 'node:stream';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Responses smaller than this are sent as they are: compressing them saves less than it costs. */
export const compressAboveBytes = 1024;

/**
 * Text-like types compressed on the fly, besides those mime-db marks compressible (JavaScript,
 * SVG…). The library's default also takes `octet-stream`, which is how artifacts of unknown type
 * are served (often already-compressed archives); server-sent events are left alone so that each
 * event leaves at once. Archives, images and videos (zip, png, webm) are not compressible in
 * mime-db and so are never compressed twice; partial content (206) never is either.
 */
const compressibleTypes = /^text\/(?!event-stream)|[+/]json(?:;|$)|[+/]text(?:;|$)|[+/]xml(?:;|$)/u;

/**
 * gzip or brotli (as the client's `Accept-Encoding` prefers) for API responses, HTML reports and
 * the trace viewer over {@link compressAboveBytes}. The console's own assets are compressed at
 * build time (console/vite.config.ts) and served as such (console-static.ts); a response that
 * already has a `Content-Encoding` is passed through. Request bodies are not decompressed.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  // The library applies the threshold to answers held in memory only; a file streamed with a
  // known small length (a trace viewer's icon, a tiny artifact) opts out through the library's
  // own `x-no-compression` request header. Application hooks run before the library's route hook.
  app.addHook('onSend', async (request, reply, payload) => {
    const length = Number(reply.getHeader('content-length'));
    if (typeof (payload as Readable | null)?.pipe === 'function' && length < compressAboveBytes)
      request.headers['x-no-compression'] = 'below the threshold';
    return payload;
  });
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: compressAboveBytes,
    customTypes: compressibleTypes,
    globalDecompression: false,
  });
}
