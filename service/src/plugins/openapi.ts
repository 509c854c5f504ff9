import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { errorBody, rateLimitBody } from '@stepdeck/contract';
import fastJson from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler as zodSerializerCompiler,
} from 'fastify-type-provider-zod';
import { type ZodType, z } from 'zod';
import { errorCatalogue } from '../errors.ts';
import type { AccessRule } from './auth/access.ts';
import { sessionCookie } from './auth/session-cookie.ts';
import { forSwaggerUi } from './openapi-ui.ts';

/**
 * OpenAPI generated from the routes' zod schemas (`/openapi.json`, with a UI at `/docs`).
 * Everything every operation shares is filled in here, once, from each route's access rule:
 * security, the project and branch headers, the error responses and a stable operationId.
 * A route declares only what is its own: access, summary, tags, request and 2xx response schemas.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Stepdeck API',
        version: '1.0.0',
        description:
          'Store, run and report on browser and API tests. `/v1` is called with an API key; `/console/v1` with a console session.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl, description: 'This Stepdeck instance' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key (`sd_…`).' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: sessionCookie,
            description: 'The console session, set by `POST /console/v1/session`.',
          },
        },
      },
    },
    // The route's access rule rides along as `x-access` until `completeDocument` turns it into security.
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      const access = input.route.config?.access;
      return access ? { ...transformed, schema: { ...transformed.schema, 'x-access': access } } : transformed;
    },
    // The zod provider's own pass first: schemas with an `id` (recursive ones) become components.
    transformObject: (document) =>
      'openapiObject' in document
        ? completeDocument(jsonSchemaTransformObject(document) as OpenApiDocument)
        : {},
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // Tags folded and no models section: the page opens on the list of tags.
    uiConfig: { docExpansion: 'none', defaultModelsExpandDepth: -1, filter: true },
    // The UI reads the document as 3.0 (openapi-ui.ts: far less work than 3.1). "Try it out"
    // calls the address the reader opened the page at (`localhost` as the README writes it, or
    // a proxy's name), not the one the service was started with.
    transformSpecification: (document, request) => ({
      ...forSwaggerUi(document),
      servers: [{ url: `${request.protocol}://${request.host}`, description: 'This Stepdeck instance' }],
    }),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Serializes 2xx bodies through the route's response schema with fast-json-stringify (compiled
 * once per route from the schema's JSON Schema), which is faster than validating with zod and
 * then calling JSON.stringify. A schema JSON Schema cannot express falls back to zod.
 */
export const responseSerializerCompiler: FastifySerializerCompiler<ZodType> = (route) => {
  const schema: unknown = route.schema;
  if (!(schema instanceof z.ZodType)) return (data: unknown) => JSON.stringify(data);
  try {
    const jsonSchema = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'throw' });
    return fastJson(jsonSchema as Parameters<typeof fastJson>[0]) as (data: unknown) => string;
  } catch {
    return zodSerializerCompiler(route) as (data: unknown) => string;
  }
};

type JsonObject = Record<string, unknown>;
interface Operation extends JsonObject {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: JsonObject[];
  responses?: Record<string, JsonObject>;
  security?: Array<Record<string, string[]>>;
}
interface OpenApiDocument extends JsonObject {
  paths?: Record<string, Record<string, Operation>>;
  components?: JsonObject & { schemas?: JsonObject };
  tags?: Array<{ name: string; description?: string }>;
}

const tagDescriptions: Record<string, string> = {
  tests: 'Tests and directories: read, write, import, export and run them.',
  steps: 'Shared steps and step groups.',
  'test-runs': 'Runs, their reports, artifacts and statistics.',
  'email-inboxes': 'Inboxes that receive email for tests.',
  schedules: 'Scheduled runs.',
  webhooks: 'Outbound webhooks (managed from the console).',
  console: 'The console: session, organization, users, keys, projects, tags.',
};

/** The document lists every code of the catalogue, so generated clients can switch over them. */
const errorCodes = Object.keys(errorCatalogue) as [
  keyof typeof errorCatalogue,
  ...Array<keyof typeof errorCatalogue>,
];
const codeDescription = errorBody.shape.code.description ?? '';

const errorReference = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorReference } },
});
const rateLimitedResponse = {
  description: 'Too many requests: retry after the number of seconds in `Retry-After`.',
  headers: {
    'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimited' } } },
};

const eitherTooManyContent = {
  'application/json': {
    schema: { anyOf: [{ $ref: '#/components/schemas/RateLimited' }, errorReference] },
  },
};

/** Error responses every route of a kind can give (routes add their own, e.g. 409). */
function errorResponsesOf(rule: AccessRule, hasParams: boolean): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {
    '400': errorResponse('Bad request: the message names the field or header at fault.'),
  };
  if (rule.kind === 'apiKey') {
    responses['401'] = errorResponse('Missing, invalid, revoked or deleted API key.');
    responses['403'] = errorResponse('The key lacks a required scope, or `LICENSE_REQUIRED`.');
    if (rule.project || hasParams)
      responses['404'] = errorResponse('Project, branch or the addressed resource not found.');
  } else if (rule.kind === 'session') {
    responses['401'] = errorResponse('Console session required.');
    responses['403'] = errorResponse('This action needs an admin or owner role.');
    if (hasParams) responses['404'] = errorResponse('The addressed resource not found.');
  } else {
    responses['401'] = errorResponse('Wrong credentials.');
  }
  responses['429'] = rateLimitedResponse;
  return responses;
}

const projectHeaders = [
  {
    name: 'x-project-id',
    in: 'header',
    required: true,
    description: 'The project (UUID). Missing: 400 `No active project`; unknown: 404 `Project not found`.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'x-branch-id',
    in: 'header',
    required: false,
    description: "A branch of the project (UUID); default the project's default branch. Unknown: 404.",
    schema: { type: 'string', format: 'uuid' },
  },
];

/** `GET /v1/tests/{testId}/steps` → `getTestsByTestIdSteps`; console routes start with `console`. */
export function operationIdOf(method: string, path: string): string {
  const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  const words = path
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'v1')
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      if (param?.[1]) return `By${capital(param[1])}`;
      return segment.split(/[-_]/).map(capital).join('');
    });
  const [first, ...rest] = words;
  if (first === 'Console') return `console${capital(method)}${rest.join('')}`;
  return `${method}${words.join('')}`;
}

/** Turns the routes' `x-` declarations (see `multipartBody`) into their OpenAPI form. */
function moveExtensions(operation: Operation): void {
  const multipart = operation['x-multipart'];
  if (multipart) {
    operation.requestBody = { required: true, content: { 'multipart/form-data': { schema: multipart } } };
  }
  const requestBody = operation.requestBody as JsonObject | undefined;
  if (operation['x-optional-body'] && requestBody) requestBody.required = false;
  const errors = (operation['x-errors'] ?? {}) as Record<string, string>;
  operation.responses = {
    ...operation.responses,
    ...Object.fromEntries(
      Object.entries(errors).map(([status, text]) => [
        status,
        // A route's own 429 (cooldowns) says `{ message }`; the rate limiter's says `{ error }`.
        status === '429'
          ? { ...rateLimitedResponse, description: text, content: eitherTooManyContent }
          : errorResponse(text),
      ]),
    ),
  };
  if (operation.requestBody) {
    operation.responses['413'] ??= errorResponse('The body, a file or a field is over its size limit.');
    operation.responses['415'] ??= errorResponse('Unsupported Content-Type.');
  }
  delete operation['x-multipart'];
  delete operation['x-optional-body'];
  delete operation['x-errors'];
}

function completeDocument(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  document.components = {
    ...document.components,
    schemas: {
      ...schemas,
      Error: z.toJSONSchema(errorBody.extend({ code: z.enum(errorCodes).describe(codeDescription) }), {
        io: 'output',
      }),
      RateLimited: z.toJSONSchema(rateLimitBody, { io: 'output' }),
    },
  };
  const usedTags = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const rule = operation['x-access'] as AccessRule | undefined;
      delete operation['x-access'];
      operation.operationId ??= operationIdOf(method, path);
      for (const tag of operation.tags ?? []) usedTags.add(tag);
      if (!rule) continue;
      operation.security =
        rule.kind === 'apiKey' ? [{ apiKey: [] }] : rule.kind === 'session' ? [{ session: [] }] : [];
      moveExtensions(operation);
      const parameters = operation.parameters ?? [];
      const hasParams = parameters.some((parameter) => parameter.in === 'path');
      if (rule.kind === 'apiKey' && rule.project) operation.parameters = [...parameters, ...projectHeaders];
      operation.responses = { ...errorResponsesOf(rule, hasParams), ...operation.responses };
    }
  }
  document.tags = [...usedTags].sort().map((name) => ({ name, description: tagDescriptions[name] ?? name }));
  return document;
}

/** A 2xx whose body is a file (`format: binary`) of the given content type. */
export const binaryResponse = (contentType: string, description: string) => ({
  description,
  // Typed as what the route sends (a buffer, a stream or text); documented as binary.
  content: { [contentType]: { schema: z.string().meta({ format: 'binary' }) as z.ZodType<FileBody> } },
});
type FileBody = string | Buffer | NodeJS.ReadableStream;

/**
 * A multipart body, declared for the document only (`x-multipart`): multipart forms are read by
 * the route itself (`readForm`), and their JSON fields are validated with the contract there.
 */
export const multipartBody = (fields: z.ZodObject) => z.toJSONSchema(fields, { io: 'input' });

/** A file part of a multipart body. */
export const filePart = () => z.string().meta({ format: 'binary' });
