/**
 * The committed route index (docs/routes.md) names the file of every route the app serves:
 * it is what the sources generate, each route it lists is one the built app answers, and each
 * operation of the app's OpenAPI document is in it.
 */
import fs from 'node:fs';
import type { HTTPMethods } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredRoutes, indexFile, renderIndex } from '../scripts/route-index.ts';
import { createTestApp, type TestApp } from './helper.ts';

/** `/v1/tests/{testId}` (OpenAPI) → `/v1/tests/:testId` (Fastify). */
const fastifyUrl = (openApiPath: string) => openApiPath.replace(/\{([^}]+)\}/g, ':$1');

describe('route index', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('is current: docs/routes.md is what the sources generate (node service/scripts/route-index.ts)', () => {
    expect(fs.readFileSync(indexFile, 'utf8')).toBe(renderIndex(declaredRoutes()));
  });

  it('lists only routes the app serves, each once', () => {
    const routes = declaredRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const missing = routes.filter(
      (route) => !t.app.hasRoute({ method: route.method as HTTPMethods, url: route.url }),
    );
    expect(missing).toEqual([]);
    const keys = routes.map((route) => `${route.method} ${route.url}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
  });

  it('lists every operation of the OpenAPI document', () => {
    const indexed = new Set(declaredRoutes().map((route) => `${route.method} ${route.url}`));
    const document = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([openApiPath, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${fastifyUrl(openApiPath)}`),
    );
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.filter((operation) => !indexed.has(operation))).toEqual([]);
  });
});
