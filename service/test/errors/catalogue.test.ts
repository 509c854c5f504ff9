import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CatalogueEntry, errorCatalogue } from '../../src/errors/catalogue.ts';
import {
  consoleCall,
  createApiKey,
  createTest,
  createTestApp,
  login,
  multipart,
  type TestApp,
} from '../helper.ts';

const sourceRoot = fileURLToPath(new URL('../../src/', import.meta.url));
const catalogueFile = path.join(sourceRoot, 'errors', 'catalogue.ts');
const entries = Object.entries(errorCatalogue) as Array<[string, CatalogueEntry]>;

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the error catalogue', () => {
  it('gives every entry a well-formed code and a status, and no two fixed entries the same answer', () => {
    const answers = new Map<string, string>();
    for (const [code, entry] of entries) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      if (typeof entry.message !== 'string') continue;
      const answer = `${entry.status} ${entry.message}`;
      expect(answers.get(answer), `${code} answers as ${answers.get(answer)} does`).toBeUndefined();
      answers.set(answer, code);
    }
  });

  it('has no entry the service never answers with', () => {
    const sources = sourceFiles(sourceRoot)
      .filter((file) => file !== catalogueFile)
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    const unused = entries.map(([code]) => code).filter((code) => !sources.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });

  it('is where every error of the service is written: no free-text error helpers remain', () => {
    const offenders = sourceFiles(sourceRoot).filter((file) =>
      /\b(badRequest|notFound|conflict|forbidden|tooManyRequests)\(\s*['`]/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
    expect(offenders.map((file) => path.relative(sourceRoot, file))).toEqual([]);
  });
});

/** Representative errors of each status, through the real app: the code rides beside the spec's message. */
describe('error codes in responses', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    admin = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  it('400: a missing project header and a request that breaks the route schema', async () => {
    const noProject = await t.app.inject({
      method: 'GET',
      url: '/v1/tests',
      headers: { 'x-api-key': t.bootstrap.apiKey },
    });
    expect(noProject.statusCode).toBe(400);
    expect(noProject.json()).toEqual({ message: 'No active project', code: 'NO_ACTIVE_PROJECT' });
    const badLimit = await t.api({ method: 'GET', url: '/v1/test-runs?limit=501' });
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json()).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('401 and 404: an unknown key, branch, test and route', async () => {
    const key = await t.api({ method: 'GET', url: '/v1/tests', headers: { 'x-api-key': 'sd_nope' } });
    expect(key.statusCode).toBe(401);
    expect(key.json()).toEqual({ message: 'Invalid API key', code: 'INVALID_API_KEY' });
    const branch = await t.api({
      method: 'GET',
      url: '/v1/tests',
      headers: { ...t.headers, 'x-branch-id': crypto.randomUUID() },
    });
    expect(branch.statusCode).toBe(404);
    expect(branch.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    const test = await t.api({ method: 'GET', url: `/v1/tests/${crypto.randomUUID()}` });
    expect(test.statusCode).toBe(404);
    expect(test.json()).toEqual({ message: 'Test not found', code: 'TEST_NOT_FOUND' });
    const route = await t.api({ method: 'GET', url: '/v1/nowhere' });
    expect(route.statusCode).toBe(404);
    expect(route.json()).toEqual({ message: 'Route GET /v1/nowhere not found', code: 'ROUTE_NOT_FOUND' });
  });

  it('409: a stale editVersion and a tag name already taken', async () => {
    const { id } = await createTest(t, { name: 'versioned', metadata: { type: 'api' }, steps: [] });
    const form = await multipart({ testData: JSON.stringify({ name: 'renamed', editVersion: 999 }) });
    const stale = await t.api({
      method: 'PUT',
      url: `/v1/tests/${id}`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'EDIT_VERSION_CONFLICT' });
    expect(stale.json().message).toMatch(/^Edit conflict: the test changed since editVersion 999 /);
    const tag = { method: 'POST' as const, url: '/console/v1/tags', payload: { name: 'twice' } };
    expect((await consoleCall(t.app, admin, tag)).statusCode).toBe(201);
    const again = await consoleCall(t.app, admin, tag);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ message: 'A tag named "twice" already exists', code: 'TAG_NAME_TAKEN' });
  });

  it('403: a missing scope (the spec’s empty message), a member on an admin route, LICENSE_REQUIRED', async () => {
    const readOnly = await createApiKey(t, ['tests:read']);
    const scope = await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-update-status',
      headers: { ...t.headers, 'x-api-key': readOnly },
      payload: { testIds: [crypto.randomUUID()], status: 'draft' },
    });
    expect(scope.statusCode).toBe(403);
    expect(scope.json()).toEqual({ message: '', code: 'MISSING_SCOPE' });

    const created = await consoleCall(t.app, admin, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'codes-member@example.com', password: 'member-password-1', role: 'member' },
    });
    expect(created.statusCode).toBe(201);
    const member = await login(t.app, 'codes-member@example.com', 'member-password-1');
    const role = await consoleCall(t.app, member, {
      method: 'POST',
      url: '/console/v1/tags',
      payload: { name: 'm' },
    });
    expect(role.statusCode).toBe(403);
    expect(role.json()).toEqual({
      message: 'This action needs an admin or owner role',
      code: 'ADMIN_ROLE_REQUIRED',
    });

    const subscription = (active: boolean) =>
      consoleCall(t.app, admin, { method: 'PUT', url: '/console/v1/subscription', payload: { active } });
    expect((await subscription(false)).statusCode).toBe(200);
    try {
      const unlicensed = await t.api({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        payload: { testIds: [crypto.randomUUID()], status: 'draft' },
      });
      expect(unlicensed.statusCode).toBe(403);
      expect(unlicensed.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
    } finally {
      expect((await subscription(true)).statusCode).toBe(200);
    }
  });
});

describe('error codes on 429', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
  });
  afterAll(async () => t?.close());

  it('the rate limiter keeps the spec’s { error } body and adds its code', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<TestApp['api']>> | undefined;
    for (let i = 0; i < 3; i += 1) {
      last = await t.api({ method: 'GET', url: '/v1/test-runs' });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last?.json()).toEqual({ error: 'Too many requests', code: 'RATE_LIMITED' });
    expect(Number(last?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
