import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, webSocketRoutes } from '../helper.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses: Record<
    string,
    { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> }
  >;
}

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  items?: unknown;
  anyOf?: unknown[];
  oneOf?: unknown[];
  allOf?: unknown[];
}

/** What every operation of the served document must say (issue: the API document as a contract). */
describe('the OpenAPI document', () => {
  let t: TestApp;
  let operations: Array<{ method: string; path: string; operation: Operation }>;
  let documentSchemas: Record<string, JsonSchema>;

  beforeAll(async () => {
    t = await createTestApp();
    const document = (await t.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, JsonSchema> };
    };
    documentSchemas = document.components.schemas;
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operation,
      })),
    );
  });
  afterAll(async () => t?.close());

  const ruleOf = (method: string, path: string) =>
    t.app.accessRules.get(`${method} ${path.replaceAll(/\{([^}]+)\}/g, ':$1')}`);

  it('lists every route that declares an access rule, each with a unique operationId, a summary and tags', () => {
    for (const route of webSocketRoutes) expect(t.app.accessRules.has(route), route).toBe(true);
    expect(operations).toHaveLength(t.app.accessRules.size - webSocketRoutes.length);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, operation } of operations) {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, `${method} ${path}`).toBeTruthy();
      expect(operation.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(ids).toContain('getTestsByTestIdSteps');
    expect(ids).toContain('consoleGetWebhooksById');
  });

  it("names the security and the project headers of each route's access rule", () => {
    for (const { method, path, operation } of operations) {
      const rule = ruleOf(method, path);
      const label = `${method} ${path}`;
      expect(rule, label).toBeDefined();
      const expected =
        rule?.kind === 'apiKey' ? [{ apiKey: [] }] : rule?.kind === 'session' ? [{ session: [] }] : [];
      expect(operation.security, label).toEqual(expected);
      const headers = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header');
      if (rule?.kind === 'apiKey' && rule.project) {
        expect(headers.find((h) => h.name === 'x-project-id')?.required, label).toBe(true);
        expect(headers.find((h) => h.name === 'x-branch-id')?.required, label).toBe(false);
      } else {
        expect(headers, label).toEqual([]);
      }
    }
  });

  it('types every 2xx, gives every error the {message} schema and 429 its Retry-After', () => {
    const browserNavigations = new Set(['GET /console/v1/sso/start', 'GET /console/v1/sso/callback']);
    for (const { method, path, operation } of operations) {
      const label = `${method} ${path}`;
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      // Single sign-on's browser navigations answer a redirect (302) or a page naming the problem.
      if (browserNavigations.has(label)) {
        expect(operation.responses['302'], label).toBeDefined();
        continue;
      }
      // The one exception: API-key inbox creation always answers 403 (console only).
      if (path !== '/v1/email-inboxes' || method !== 'POST') expect(success.length, label).toBeGreaterThan(0);
      for (const [status, response] of success) {
        const schemas = Object.values(response.content ?? {}).map((content) => content.schema);
        expect(schemas.length, `${label} ${status}`).toBeGreaterThan(0);
        for (const schema of schemas) expect(schema, `${label} ${status}`).toBeTruthy();
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith('4') || status === '429') continue;
        expect(JSON.stringify(response.content), `${label} ${status}`).toMatch(
          /"message"|#\/components\/schemas\/Error/,
        );
      }
      expect(operation.responses['429']?.headers, label).toHaveProperty('Retry-After');
      expect(operation.responses['401'], label).toBeDefined();
    }
  });

  it('closes every object of every 2xx body: all properties listed, additionalProperties false', () => {
    const components = documentSchemas;
    /**
     * User-supplied JSON the service stores and returns as given (run configuration, test, run
     * and environment variables, step actions and conditions, webhook custom data): open maps by
     * design.
     */
    const freeForm = new Set([
      'config',
      'vars',
      'variables',
      'parameters',
      'metadata',
      'action',
      'condition',
      'customData',
      'custom',
    ]);
    const loose: string[] = [];
    const visit = (schema: unknown, where: string, key: string, seen: Set<unknown>): void => {
      let node = schema as JsonSchema | undefined;
      while (node?.$ref) node = components[node.$ref.replace('#/components/schemas/', '')];
      if (!node || seen.has(node)) return;
      seen.add(node);
      for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
        visit(branch, where, key, seen);
      if (node.items) visit(node.items, `${where}[]`, key, seen);
      const types = Array.isArray(node.type) ? node.type : [node.type];
      const isObject = types.includes('object') || node.properties !== undefined;
      if (!isObject) return;
      const isMap = node.properties === undefined && node.additionalProperties !== false;
      if (isMap ? !freeForm.has(key) : node.additionalProperties !== false) loose.push(where || '(body)');
      for (const [name, property] of Object.entries(node.properties ?? {}))
        visit(property, `${where}.${name}`, name, seen);
    };
    let checked = 0;
    for (const { method, path, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith('2')) continue;
        const json = response.content?.['application/json']?.schema;
        if (!json) continue;
        checked++;
        const before = loose.length;
        visit(json, '', '', new Set());
        for (let i = before; i < loose.length; i++) loose[i] = `${method} ${path} ${status} ${loose[i]}`;
      }
    }
    expect(checked).toBeGreaterThan(70);
    expect(loose).toEqual([]);
    // The check itself sees an open object, and an open map outside the free-form fields.
    visit({ type: 'object', properties: { id: {} }, additionalProperties: {} }, 'probe', '', new Set());
    visit({ type: 'object', additionalProperties: {} }, 'probe.map', 'name', new Set());
    expect(loose).toEqual(['probe', 'probe.map']);
  });

  it('declares the multipart bodies with their fields, and the optional JSON bodies as optional', () => {
    const find = (method: string, path: string) =>
      operations.find((entry) => entry.method === method && entry.path === path)?.operation;
    const multipartOf = (method: string, path: string) =>
      JSON.stringify(find(method, path)?.requestBody?.content['multipart/form-data']);
    expect(multipartOf('POST', '/v1/tests')).toContain('"testData"');
    expect(multipartOf('POST', '/v1/tests')).toContain('"binary"');
    expect(multipartOf('PUT', '/v1/tests/{testId}')).toContain('"testData"');
    expect(multipartOf('POST', '/v1/tests/import')).toContain('"file"');
    expect(multipartOf('PUT', '/v1/steps/{stepId}/update')).toContain('"stepData"');
    expect(multipartOf('PUT', '/v1/steps/{stepId}/children')).toContain('"children"');
    expect(find('POST', '/v1/tests/{testId}/duplicate')?.requestBody?.required).toBe(false);
    expect(find('POST', '/v1/tests/{testId}/remote-run')?.requestBody?.required).toBe(false);
    expect(Object.keys(find('POST', '/v1/tests/export')?.responses['200']?.content ?? {})).toEqual([
      'application/zip',
    ]);
  });

  it('matches the lists of bodiless and optional-body routes in docs/api.md', () => {
    const text = fs.readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const blocks = [...text.matchAll(/```\n([\s\S]*?)```/g)].map((match) =>
      (match[1] ?? '').trim().split('\n'),
    );
    const changing = operations.filter(({ method }) => method !== 'GET');
    const bodiless = changing.filter(({ operation }) => !operation.requestBody);
    const optional = changing.filter(({ operation }) => operation.requestBody?.required === false);
    const names = (list: typeof operations) => list.map(({ method, path }) => `${method} ${path}`).sort();
    expect([...(blocks[0] ?? [])].sort()).toEqual(names(bodiless));
    expect([...(blocks[1] ?? [])].sort()).toEqual(names(optional));
  });
});
