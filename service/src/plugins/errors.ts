import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ZodError } from 'zod';
import { AppError, appError, type ErrorCode, errorCatalogue } from '../errors.ts';

const describeZodIssues = (error: ZodError, where?: string) =>
  error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : (where ?? 'value');
      return `${where && issue.path.length > 0 ? `${where}.` : ''}${path}: ${issue.message}`;
    })
    .join('; ');

/** Fastify's own error codes for bad input, each with the catalogue entry (and so the status) it deserves. */
const requestErrorCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_REQUEST',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_REQUEST',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_VALIDATION: 'INVALID_REQUEST',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_PARTS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FIELDS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_PROTO_VIOLATION: 'MALFORMED_REQUEST',
};
const statusOf = (code: ErrorCode) => errorCatalogue[code].status;

/**
 * The one error handler: every failure leaves as `{ message, code }` JSON with a code of the
 * catalogue (errors/catalogue.ts), and bad input is never a 500.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { rateLimited?: boolean }, request, reply) => {
    if (error.rateLimited) {
      return reply.code(429).send({ error: 'Too many requests', code: 'RATE_LIMITED' satisfies ErrorCode });
    }
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error }, error.message);
      if (error.headers) reply.headers(error.headers);
      return reply.code(error.statusCode).send({ message: error.message, code: error.code, ...error.body });
    }
    if (error instanceof ZodError) {
      return send(reply, appError('INVALID_REQUEST', describeZodIssues(error)));
    }
    if (error.validation) {
      const where = error.validationContext ?? 'request';
      // No body, or an empty one (both reach validation as `undefined`) on a route that needs one.
      if (where === 'body' && request.body === undefined) {
        return send(reply, appError('BODY_REQUIRED'));
      }
      const details = error.validation
        .map((issue) => {
          const path = String(issue.instancePath ?? '')
            .replace(/^\//, '')
            .replaceAll('/', '.');
          return `${where}${path ? `.${path}` : ''}: ${issue.message}`;
        })
        .join('; ');
      return send(reply, appError('INVALID_REQUEST', details));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const type = String(request.headers['content-type'] ?? '').slice(0, 100);
      return send(reply, appError('UNSUPPORTED_MEDIA_TYPE', type));
    }
    const mapped = error.code ? requestErrorCodes[error.code] : undefined;
    const status = mapped ? statusOf(mapped) : error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // An unmapped framework 4xx keeps its own status under the catch-all code.
      return reply.code(status).send({ message: error.message, code: mapped ?? 'REQUEST_REFUSED' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, appError('INTERNAL_ERROR'));
  });

  app.setNotFoundHandler((request, reply) => {
    send(reply, appError('ROUTE_NOT_FOUND', request.method, request.url.split('?')[0] ?? ''));
  });
}

const send = (reply: FastifyReply, error: AppError) =>
  reply.code(error.statusCode).send({ message: error.message, code: error.code });

/** For domain code that parses JSON strings from form fields. */
export const zodMessage = describeZodIssues;
