import type { FastifyError, FastifyInstance } from 'fastify';
import { ZodError } from 'zod';
import { AppError } from '../errors.ts';

const describeZodIssues = (error: ZodError, where?: string) =>
  error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : (where ?? 'value');
      return `${where && issue.path.length > 0 ? `${where}.` : ''}${path}: ${issue.message}`;
    })
    .join('; ');

/** Fastify's own error codes for bad input, each with the status it deserves. */
const requestErrorStatus: Record<string, number> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_VALIDATION: 400,
  FST_INVALID_MULTIPART_CONTENT_TYPE: 415,
  FST_REQ_FILE_TOO_LARGE: 413,
  FST_PARTS_LIMIT: 413,
  FST_FILES_LIMIT: 413,
  FST_FIELDS_LIMIT: 413,
  FST_PROTO_VIOLATION: 400,
};

/** The one error handler: every failure leaves as `{ message }` JSON, and bad input is never a 500. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) {
      return reply.code(429).send({ error: 'Too many requests' });
    }
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error }, error.message);
      if (error.headers) reply.headers(error.headers);
      return reply.code(error.statusCode).send({ message: error.message, ...error.body });
    }
    if (error instanceof ZodError) {
      return reply.code(400).send({ message: describeZodIssues(error) });
    }
    if (error.validation) {
      const where = error.validationContext ?? 'request';
      // No body, or an empty one (both reach validation as `undefined`) on a route that needs one.
      if (where === 'body' && request.body === undefined) {
        return reply.code(400).send({ message: 'body: must not be empty: this route takes a JSON body' });
      }
      const details = error.validation
        .map((issue) => {
          const path = String(issue.instancePath ?? '')
            .replace(/^\//, '')
            .replaceAll('/', '.');
          return `${where}${path ? `.${path}` : ''}: ${issue.message}`;
        })
        .join('; ');
      return reply.code(400).send({ message: details });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const type = String(request.headers['content-type'] ?? '').slice(0, 100);
      return reply.code(415).send({ message: `Unsupported Content-Type: ${type || '(none)'}` });
    }
    const mapped = error.code ? requestErrorStatus[error.code] : undefined;
    const status = mapped ?? error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ message: 'Internal Server Error' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ message: `Route ${request.method} ${request.url.split('?')[0]} not found` });
  });
}

/** For domain code that parses JSON strings from form fields. */
export const zodMessage = describeZodIssues;
