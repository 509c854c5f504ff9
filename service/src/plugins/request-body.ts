import type { FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';

/**
 * The one place where optional bodies are made optional, for every route at once: many
 * clients (curl with a default header, Postman, generated clients) send
 * `Content-Type: application/json` with an empty body, or no body at all, on a POST whose
 * body the spec makes optional or absent. Both reach the route as "no body" (`undefined`),
 * so a route validates them with its own schema: an optional body passes, a required one
 * is refused with a 400 naming `body`. Malformed JSON still gets Fastify's own 400.
 */
export function registerRequestBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });
  // Fastify hands a bodiless request to validation as `null`; the schemas say `optional`.
  app.setValidatorCompiler<ZodType>((route) => {
    const validate = validatorCompiler(route);
    if (route.httpPart !== 'body') return validate;
    return (data: unknown) => validate(data === null ? undefined : data);
  });
  app.addHook('preValidation', async (request) => {
    if (request.body === null) request.body = undefined;
  });
}
