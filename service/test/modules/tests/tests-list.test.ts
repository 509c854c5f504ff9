import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, multipart } from './helpers.ts';

describe.each(databaseKinds)('GET/POST /v1/tests on %s', (database) => {
  let t: TestApp;
  let tagA: string;
  let tagB: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTestApp({ database });
    const cookie = await t.consoleCookie();
    tagA = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: 'smoke' },
      })
    ).json().data.id;
    tagB = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: 'nightly' },
      })
    ).json().data.id;
    ids.dir = (await createTest(t, { name: 'Checkout', directory: true, status: 'active' })).id;
    ids.alpha = (
      await createTest(t, {
        name: 'Alpha login',
        status: 'active',
        parentTestId: ids.dir,
        steps: [gotoStep('/')],
        tags: [tagA],
      })
    ).id;
    ids.beta = (
      await createTest(t, { name: 'beta LOGIN', status: 'draft', parentTestId: ids.dir, tags: [tagB] })
    ).id;
    ids.api = (await createTest(t, { name: 'Api health', status: 'archived', metadata: { type: 'api' } })).id;
  });
  afterAll(async () => t?.close());

  const list = async (query: string) => {
    const response = await t.api({ method: 'GET', url: `/v1/tests${query}` });
    expect(response.statusCode).toBe(200);
    return response.json() as {
      children: Array<Record<string, unknown>>;
      pagination: Record<string, unknown>;
    };
  };

  it('returns children and pagination without a data wrapper', async () => {
    const body = await list('');
    expect(body).not.toHaveProperty('data');
    expect(body.pagination).toEqual({ page: 0, limit: 50, total: 4, totalPages: 1, hasMore: false });
    const dir = body.children.find((item) => item.id === ids.dir);
    expect(dir).toMatchObject({
      name: 'Checkout',
      directory: true,
      childrenCount: 2,
      status: 'active',
      parentTestId: null,
    });
    const alpha = body.children.find((item) => item.id === ids.alpha);
    expect(alpha).toMatchObject({
      parentTestId: ids.dir,
      stepsCount: 1,
      tags: [{ id: tagA, name: 'smoke' }],
      metadata: { type: 'ui', tags: ['smoke'] },
      projectId: t.bootstrap.projectId,
    });
    for (const field of ['organizationId', 'config', 'vars', 'parameters', 'createdAt', 'updatedAt'])
      expect(alpha).toHaveProperty(field);
  });

  it('paginates', async () => {
    const body = await list('?limit=3&page=1&sortBy=name&sortOrder=asc');
    expect(body.pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2, hasMore: false });
    expect(body.children.map((item) => item.name)).toEqual(['Checkout']);
    const first = await list('?limit=3&page=0&sortBy=name');
    expect(first.pagination.hasMore).toBe(true);
    expect(first.children.map((item) => item.name)).toEqual(['Alpha login', 'Api health', 'beta LOGIN']);
  });

  it('filters by name (case-insensitive), status, tags, type and parent', async () => {
    expect((await list('?name=LoGiN')).children.map((item) => item.id).sort()).toEqual(
      [ids.alpha, ids.beta].sort(),
    );
    expect((await list('?name=%25')).children).toHaveLength(0);
    expect((await list('?status=draft')).children.map((item) => item.id)).toEqual([ids.beta]);
    expect((await list('?status=draft&status=archived')).children.map((item) => item.id).sort()).toEqual(
      [ids.beta, ids.api].sort(),
    );
    expect((await list(`?tagIds=${tagA}`)).children.map((item) => item.id)).toEqual([ids.alpha]);
    expect((await list(`?tagIds=${tagA}&tagIds=${tagB}`)).children).toHaveLength(2);
    expect((await list('?type=api')).children.map((item) => item.id)).toEqual([ids.api]);
    expect((await list('?type=ui')).children).toHaveLength(3);
    const children = await list(`?testId=${ids.dir}&limit=1`);
    expect(children.children).toHaveLength(2);
    expect(children.pagination).toMatchObject({ total: 2, hasMore: false });
  });

  it('lists only the top level with topLevel=true (an extension), with filters, sort and pages', async () => {
    const top = await list('?topLevel=true');
    expect(top.children.map((item) => item.id).sort()).toEqual([ids.dir, ids.api].sort());
    expect(top.pagination).toEqual({ page: 0, limit: 50, total: 2, totalPages: 1, hasMore: false });
    expect(top.children.find((item) => item.id === ids.dir)).toMatchObject({ childrenCount: 2 });
    expect(
      (await list('?topLevel=true&sortBy=name&sortOrder=desc')).children.map((item) => item.name),
    ).toEqual(['Checkout', 'Api health']);
    expect((await list('?topLevel=true&type=api')).children.map((item) => item.id)).toEqual([ids.api]);
    expect((await list('?topLevel=true&name=login')).children).toHaveLength(0);
    const paged = await list('?topLevel=true&limit=1&page=1&sortBy=name');
    expect(paged.children.map((item) => item.name)).toEqual(['Checkout']);
    expect(paged.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2, hasMore: false });
    // topLevel=false and no topLevel are the spec's list, byte for byte.
    const plain = await t.api({ method: 'GET', url: '/v1/tests?sortBy=name' });
    const withFalse = await t.api({ method: 'GET', url: '/v1/tests?sortBy=name&topLevel=false' });
    expect(withFalse.body).toBe(plain.body);
    expect(plain.json().pagination.total).toBe(4);
  });

  it('rejects topLevel with another value, or combined with testId, with 400', async () => {
    const bad = await t.api({ method: 'GET', url: '/v1/tests?topLevel=yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('topLevel must be true or false');
    const both = await t.api({ method: 'GET', url: `/v1/tests?topLevel=true&testId=${ids.dir}` });
    expect(both.statusCode).toBe(400);
    expect(both.json().message).toContain('testId and topLevel=true cannot be combined');
  });

  it('sorts by name, status and updatedAt', async () => {
    expect((await list('?sortBy=name&sortOrder=desc')).children.map((item) => item.name)).toEqual([
      'Checkout',
      'beta LOGIN',
      'Api health',
      'Alpha login',
    ]);
    expect((await list('?sortBy=status')).children.map((item) => item.status)).toEqual([
      'active',
      'active',
      'archived',
      'draft',
    ]);
    const byUpdated = (await list('?sortBy=updatedAt&sortOrder=desc')).children.map(
      (item) => item.updatedAt as string,
    );
    expect([...byUpdated].sort().reverse()).toEqual(byUpdated);
  });

  it('rejects bad queries with 400', async () => {
    // Each stating the rule, whatever broke it.
    for (const [query, message] of [
      ['limit=0', 'querystring.limit: limit must be a whole number 1 or more'],
      ['limit=abc', 'querystring.limit: limit must be a whole number 1 or more'],
      ['page=-1', 'querystring.page: page must be a whole number 0 or more'],
      ['page=1.5', 'querystring.page: page must be a whole number 0 or more'],
    ]) {
      const response = await t.api({ method: 'GET', url: `/v1/tests?${query}` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message, code: 'INVALID_REQUEST' });
    }
    const runs = await t.api({ method: 'GET', url: '/v1/test-runs?limit=501' });
    expect(runs.json()).toEqual({
      message: 'querystring.limit: limit must be a whole number from 1 to 500',
      code: 'INVALID_REQUEST',
    });
    expect((await t.api({ method: 'GET', url: '/v1/tests?status=bogus' })).statusCode).toBe(400);
    expect((await t.api({ method: 'GET', url: '/v1/tests?sortBy=size' })).statusCode).toBe(400);
  });

  it('answers 404 for an unknown branch override', async () => {
    const response = await t.api({ method: 'GET', url: `/v1/tests?branch=${crypto.randomUUID()}` });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
  });

  it('creates with multipart and returns the bare row', async () => {
    const form = await multipart(
      {
        testData: JSON.stringify({
          name: 'Upload',
          steps: [{ name: 'pick', action: { name: 'setInputFiles', selector: '#f', files: ['a.txt'] } }],
        }),
      },
      [{ filename: 'a.txt', content: 'hello' }],
    );
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: form.payload,
      headers: form.headers,
    });
    expect(response.statusCode).toBe(200);
    const row = response.json().data;
    expect(Object.keys(row).sort()).toEqual([
      'createdAt',
      'id',
      'organizationId',
      'parentTestId',
      'projectId',
      'updatedAt',
    ]);
    const files = await t.api({ method: 'GET', url: `/v1/tests/${row.id}/files` });
    expect(files.json().data).toEqual([
      { filename: 'a.txt', content: Buffer.from('hello').toString('base64'), stepId: expect.any(String) },
    ]);
    const detail = await t.api({ method: 'GET', url: `/v1/tests/${row.id}` });
    expect(detail.json().test).toMatchObject({ name: 'Upload', status: 'draft', directory: false });
  });

  it('refuses invalid testData with 400 naming the field', async () => {
    const long = await multipart({ testData: JSON.stringify({ name: 'x'.repeat(65) }) });
    const r1 = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: long.payload,
      headers: long.headers,
    });
    expect(r1.statusCode).toBe(400);
    expect(r1.json().message).toContain('testData.name');
    const badAction = await multipart({
      testData: JSON.stringify({
        name: 'x',
        steps: [gotoStep('/'), { name: 'Click it', action: { name: 'click' } }],
      }),
    });
    const r2 = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: badAction.payload,
      headers: badAction.headers,
    });
    expect(r2.statusCode).toBe(400);
    expect(r2.json().message).toBe(
      'step "Click it" (testData.steps[1]): action.selector: selector is required and must be a string',
    );
    const unknown = await multipart({
      testData: JSON.stringify({ name: 'x', steps: [{ name: 'Fly', action: { name: 'fly' } }] }),
    });
    const r3 = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: unknown.payload,
      headers: unknown.headers,
    });
    expect(r3.statusCode).toBe(400);
    expect(r3.json().message).toContain('step "Fly" (testData.steps[0]): action.name');
    const notJson = await multipart({ testData: '{nope' });
    const r4 = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: notJson.payload,
      headers: notJson.headers,
    });
    expect(r4.statusCode).toBe(400);
    const missing = await multipart({ other: '1' });
    expect(
      (await t.api({ method: 'POST', url: '/v1/tests', payload: missing.payload, headers: missing.headers }))
        .statusCode,
    ).toBe(400);
    const tag = await multipart({ testData: JSON.stringify({ name: 'x', tags: [crypto.randomUUID()] }) });
    const r5 = await t.api({ method: 'POST', url: '/v1/tests', payload: tag.payload, headers: tag.headers });
    expect(r5.statusCode).toBe(404);
    expect(r5.json().message).toBe('Tag not found');
  });

  it('refuses step trees nested deeper than 50 levels and step names over 256 characters', async () => {
    const nested = (levels: number): Record<string, unknown> => {
      let step: Record<string, unknown> = gotoStep('/');
      for (let level = 0; level < levels; level += 1)
        step = { name: `group ${level}`, action: { name: 'group' }, children: [step] };
      return step;
    };
    const post = async (testData: Record<string, unknown>) => {
      const form = await multipart({ testData: JSON.stringify(testData) });
      return t.api({ method: 'POST', url: '/v1/tests', payload: form.payload, headers: form.headers });
    };
    // 50 levels of groups: the action inside is the 51st level, one too many.
    const tooDeep = await post({ name: 'too deep', steps: [nested(50)] });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json().message).toBe('testData.steps: groups may nest at most 50 levels deep');
    expect((await post({ name: 'deep enough', steps: [nested(49)] })).statusCode).toBe(200);

    const longName = await post({ name: 'long step', steps: [{ ...gotoStep('/'), name: 'n'.repeat(257) }] });
    expect(longName.statusCode).toBe(400);
    expect(longName.json().message).toBe('step (testData.steps[0]): name: at most 256 characters');
    const created = await post({ name: 'long enough', steps: [{ ...gotoStep('/'), name: 'n'.repeat(256) }] });
    expect(created.statusCode).toBe(200);
    const listed = await t.api({ method: 'GET', url: '/v1/tests?name=too%20deep' });
    expect(listed.json().children).toEqual([]);
  });

  it('bulk-updates status', async () => {
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-update-status',
      payload: { testIds: [ids.beta, ids.api], status: 'active' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: null });
    expect((await list('?status=active')).children.map((item) => item.id)).toEqual(
      expect.arrayContaining([ids.beta, ids.api]),
    );
    const empty = await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-update-status',
      payload: { testIds: [], status: 'active' },
    });
    expect(empty.statusCode).toBe(400);
    const unknown = await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-update-status',
      payload: { testIds: [crypto.randomUUID()], status: 'active' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('needs the license for changes but not for reads', async () => {
    const cookie = await t.consoleCookie();
    await consoleCall(t.app, cookie, {
      method: 'PUT',
      url: '/console/v1/subscription',
      payload: { active: false },
    });
    try {
      const response = await t.api({
        method: 'POST',
        url: '/v1/tests/bulk-update-status',
        payload: { testIds: [ids.beta], status: 'draft' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ message: 'LICENSE_REQUIRED', code: 'LICENSE_REQUIRED' });
      expect((await t.api({ method: 'GET', url: '/v1/tests' })).statusCode).toBe(200);
    } finally {
      await consoleCall(t.app, cookie, {
        method: 'PUT',
        url: '/console/v1/subscription',
        payload: { active: true },
      });
    }
  });
});
