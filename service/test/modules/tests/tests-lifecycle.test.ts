import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, multipart, updateTest } from './helpers.ts';

describe.each(databaseKinds)('test lifecycle on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  const get = async (url: string, headers: Record<string, string> = {}) =>
    t.api({ method: 'GET', url, headers });

  it('shows detail with steps, children and parent; 404 for unknown', async () => {
    const dir = await createTest(t, { name: 'Dir', directory: true });
    const leaf = await createTest(t, {
      name: 'Leaf',
      parentTestId: dir.id,
      steps: [
        gotoStep('/'),
        {
          name: 'Group',
          action: { name: 'group' },
          children: [{ name: 'Click', action: { name: 'click', selector: '#a' } }],
        },
      ],
    });
    const detail = (await get(`/v1/tests/${leaf.id}`)).json();
    expect(detail.test).toMatchObject({ id: leaf.id, name: 'Leaf', parentTestId: dir.id, editVersion: 1 });
    expect(detail.parentDirectory).toMatchObject({ id: dir.id, name: 'Dir' });
    expect(detail.steps.map((step: { name: string }) => step.name)).toEqual(['open /', 'Group']);
    expect(detail.steps[1]).toMatchObject({ group: true, shared: false, order: 1 });
    const dirDetail = (await get(`/v1/tests/${dir.id}`)).json();
    expect(dirDetail.children.map((child: { id: string }) => child.id)).toEqual([leaf.id]);
    const steps = (await get(`/v1/tests/${leaf.id}/steps`)).json().data.steps;
    expect(steps[1].children[0]).toMatchObject({ name: 'Click', action: { name: 'click', selector: '#a' } });
    const one = (await get(`/v1/tests/${leaf.id}/steps/${steps[1].id}`)).json().data;
    expect(one.step.name).toBe('Group');
    expect(one.children).toHaveLength(1);
    expect((await get(`/v1/tests/${leaf.id}/steps/${crypto.randomUUID()}`)).statusCode).toBe(404);
    const missing = await get(`/v1/tests/${crypto.randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Test not found', code: 'TEST_NOT_FOUND' });
  });

  it('updates with editVersion and answers 409 on a stale one', async () => {
    const test = await createTest(t, { name: 'Editable' });
    const ok = await updateTest(t, test.id, {
      name: 'Edited',
      status: 'active',
      editVersion: 1,
      vars: { a: 1 },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ data: null });
    const detail = (await get(`/v1/tests/${test.id}`)).json().test;
    expect(detail).toMatchObject({ name: 'Edited', status: 'active', editVersion: 2, vars: { a: 1 } });
    const stale = await updateTest(t, test.id, { name: 'Again', editVersion: 1 });
    expect(stale.statusCode).toBe(409);
    expect((await updateTest(t, test.id, { name: 'No check' })).statusCode).toBe(200);
    expect((await updateTest(t, crypto.randomUUID(), { name: 'x' })).statusCode).toBe(404);
    const bad = await updateTest(t, test.id, {
      steps: [{ name: 'Fill', action: { name: 'fill', selector: '#a' } }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('action.value');
  });

  it('saves revisions, lists them newest first, 400 without changes', async () => {
    const test = await createTest(t, { name: 'Rev', steps: [gotoStep('/one')] });
    const first = await t.api({
      method: 'POST',
      url: `/v1/tests/${test.id}/revisions`,
      payload: { message: 'v1' },
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ message: 'v1', revisionType: 'manual' });
    const again = await t.api({
      method: 'POST',
      url: `/v1/tests/${test.id}/revisions`,
      payload: { message: 'v1b' },
    });
    expect(again.statusCode).toBe(400);
    await updateTest(t, test.id, { steps: [gotoStep('/two')] });
    const second = await t.api({
      method: 'POST',
      url: `/v1/tests/${test.id}/revisions`,
      payload: { message: 'v2' },
    });
    expect(second.statusCode).toBe(200);
    const list = (await get(`/v1/tests/${test.id}/revisions`)).json().data;
    expect(list.map((item: { message: string }) => item.message)).toEqual(['v2', 'v1']);
    const snapshot = (await get(`/v1/tests/${test.id}/revisions/${first.json().data.id}`)).json().data;
    expect(snapshot.steps[0].action.url).toBe('/one');
    expect(snapshot.test).toEqual({ id: test.id, name: 'Rev' });
    const viaSteps = (await get(`/v1/tests/${test.id}/steps?revisionId=${first.json().data.id}`)).json().data
      .steps;
    expect(viaSteps[0].action.url).toBe('/one');
    expect((await get(`/v1/tests/${test.id}/revisions/${crypto.randomUUID()}`)).statusCode).toBe(404);
    expect(
      (await t.api({ method: 'POST', url: `/v1/tests/${test.id}/revisions`, payload: {} })).statusCode,
    ).toBe(400);
  });

  it('duplicates a directory with its subtree, steps, tags and files', async () => {
    const tag = (
      await consoleCall(t.app, cookie, { method: 'POST', url: '/console/v1/tags', payload: { name: 'dup' } })
    ).json().data.id;
    const dir = await createTest(t, { name: 'Suite', directory: true, status: 'active' });
    const child = await createTest(
      t,
      {
        name: 'Upload',
        parentTestId: dir.id,
        tags: [tag],
        steps: [{ name: 'pick', action: { name: 'setInputFiles', selector: '#f', files: ['x.txt'] } }],
      },
      { files: [{ filename: 'x.txt', content: 'payload' }] },
    );
    const response = await t.api({
      method: 'POST',
      url: `/v1/tests/${dir.id}/duplicate`,
      payload: { status: 'draft' },
    });
    expect(response.statusCode).toBe(200);
    const copy = response.json().data;
    expect(copy.name).toBe('Suite (Copy)');
    const children = (await get(`/v1/tests?testId=${copy.id}`)).json().children;
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({
      name: 'Upload',
      status: 'draft',
      stepsCount: 1,
      tags: [{ id: tag, name: 'dup' }],
    });
    expect(children[0].id).not.toBe(child.id);
    const files = (await get(`/v1/tests/${children[0].id}/files`)).json().data;
    expect(Buffer.from(files[0].content, 'base64').toString()).toBe('payload');
    const named = await t.api({
      method: 'POST',
      url: `/v1/tests/${child.id}/duplicate`,
      payload: { name: 'y'.repeat(129) },
    });
    expect(named.statusCode).toBe(400);
    expect(
      (await t.api({ method: 'POST', url: `/v1/tests/${crypto.randomUUID()}/duplicate`, payload: {} }))
        .statusCode,
    ).toBe(404);
  });

  it('replaces tags in bulk and deletes (single and bulk)', async () => {
    const tag1 = (
      await consoleCall(t.app, cookie, { method: 'POST', url: '/console/v1/tags', payload: { name: 'one' } })
    ).json().data.id;
    const tag2 = (
      await consoleCall(t.app, cookie, { method: 'POST', url: '/console/v1/tags', payload: { name: 'two' } })
    ).json().data.id;
    const a = await createTest(t, { name: 'Tagged A', tags: [tag1] });
    const b = await createTest(t, { name: 'Tagged B' });
    const r = await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-update-tags',
      payload: { testIds: [a.id, b.id], tagIds: [tag2] },
    });
    expect(r.statusCode).toBe(200);
    expect(
      (await get(`/v1/tests?tagIds=${tag2}`))
        .json()
        .children.map((c: { id: string }) => c.id)
        .sort(),
    ).toEqual([a.id, b.id].sort());
    expect((await get(`/v1/tests?tagIds=${tag1}`)).json().children).toHaveLength(0);
    await t.api({
      method: 'POST',
      url: '/v1/tests/bulk-update-tags',
      payload: { testIds: [a.id], tagIds: [] },
    });
    expect((await get(`/v1/tests/${a.id}`)).json().test.tags).toEqual([]);
    expect(
      (
        await t.api({
          method: 'POST',
          url: '/v1/tests/bulk-update-tags',
          payload: { testIds: [a.id], tagIds: [crypto.randomUUID()] },
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.api({ method: 'DELETE', url: `/v1/tests/${a.id}` })).json()).toEqual({ data: null });
    expect((await get(`/v1/tests/${a.id}`)).statusCode).toBe(404);
    expect((await t.api({ method: 'DELETE', url: `/v1/tests/${a.id}` })).statusCode).toBe(404);
    expect(
      (await t.api({ method: 'POST', url: '/v1/tests/bulk-delete', payload: { testIds: [b.id] } }))
        .statusCode,
    ).toBe(200);
    expect((await get(`/v1/tests/${b.id}`)).statusCode).toBe(404);
  });

  it('copies working revisions to a new branch; shared step update is copy-on-write; delete refused while used', async () => {
    const created = await createTest(t, {
      name: 'Shared user',
      steps: [{ name: 'Login', shared: true, action: { name: 'goto', url: '/login' } }],
    });
    const steps = (await get(`/v1/tests/${created.id}/steps`)).json().data.steps;
    const sharedId = steps[0].stepId as string;
    expect(steps[0].shared).toBe(true);
    const second = await createTest(t, { name: 'Second user', steps: [{ shared: true, stepId: sharedId }] });
    const listed = (await get('/v1/steps/shared?search=log')).json();
    expect(listed.data.map((s: { id: string }) => s.id)).toContain(sharedId);
    expect(listed.pagination).toMatchObject({ page: 0, limit: 50 });
    expect((await get(`/v1/steps/${sharedId}`)).json().data).toMatchObject({
      id: sharedId,
      shared: true,
      group: false,
    });
    expect(
      (await get(`/v1/steps/${sharedId}/usage`))
        .json()
        .data.map((u: { id: string }) => u.id)
        .sort(),
    ).toEqual([created.id, second.id].sort());

    const branch = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
        payload: { name: `feature-${database}` },
      })
    ).json().data;
    const onBranch = { 'x-branch-id': branch.id };
    expect((await get(`/v1/tests/${created.id}`, onBranch)).json().test.name).toBe('Shared user');

    const form = await multipart({ stepData: JSON.stringify({ action: { name: 'goto', url: '/signin' } }) });
    const updated = await t.api({
      method: 'PUT',
      url: `/v1/steps/${sharedId}/update`,
      payload: form.payload,
      headers: { ...form.headers, ...onBranch },
    });
    expect(updated.statusCode).toBe(200);
    const newId = updated.json().data.id;
    expect(newId).not.toBe(sharedId);
    expect((await get(`/v1/tests/${created.id}/steps`, onBranch)).json().data.steps[0].action.url).toBe(
      '/signin',
    );
    expect((await get(`/v1/tests/${created.id}/steps`)).json().data.steps[0].action.url).toBe('/login');

    const refused = await t.api({ method: 'DELETE', url: `/v1/steps/${sharedId}` });
    expect(refused.statusCode).toBe(400);
    const body = refused.json();
    expect(body.message).toContain('still used');
    expect(body.tests.map((x: { id: string }) => x.id).sort()).toEqual([created.id, second.id].sort());
    expect(body.branches.map((x: { name: string }) => x.name)).toEqual(['main']);
    expect((await t.api({ method: 'DELETE', url: `/v1/steps/${crypto.randomUUID()}` })).statusCode).toBe(404);
  });

  it('exports JSON and imports it into an empty project', async () => {
    const tag = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: `export-${database}` },
      })
    ).json().data.id;
    const dir = await createTest(t, { name: 'Export dir', directory: true, status: 'active' });
    await createTest(
      t,
      {
        name: 'Export leaf',
        parentTestId: dir.id,
        status: 'active',
        tags: [tag],
        steps: [
          gotoStep('/'),
          { name: 'Shared grp', shared: true, action: { name: 'group' }, children: [gotoStep('/in')] },
          { name: 'pick', action: { name: 'setInputFiles', selector: '#f', files: ['f.txt'] } },
        ],
      },
      { files: [{ filename: 'f.txt', content: 'file body' }] },
    );
    const exported = await t.api({
      method: 'POST',
      url: '/v1/tests/export',
      payload: { directoryId: dir.id },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('application/zip');
    expect(exported.headers['content-disposition']).toContain('service-tests.zip');
    expect((await t.api({ method: 'POST', url: '/v1/tests/export', payload: {} })).statusCode).toBe(400);

    const project = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/projects',
        payload: { name: `empty-${database}` },
      })
    ).json().data;
    const headers = { 'x-project-id': project.id };
    const form = await multipart({}, [
      { field: 'file', filename: 'service-tests.zip', content: exported.rawPayload },
    ]);
    const imported = await t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: form.payload,
      headers: { ...form.headers, ...headers },
    });
    expect(imported.statusCode).toBe(200);
    expect(imported.json().data).toEqual({
      imported: { tests: 2, sharedSteps: 1, tags: 0, steps: 3 },
      errors: [],
    });
    const list = (await get('/v1/tests?sortBy=name', headers)).json().children;
    expect(list.map((x: { name: string }) => x.name)).toEqual(['Export dir', 'Export leaf']);
    const leaf = list[1];
    expect(leaf.parentTestId).toBe(list[0].id);
    expect(leaf.tags.map((x: { name: string }) => x.name)).toEqual([`export-${database}`]);
    const steps = (await get(`/v1/tests/${leaf.id}/steps`, headers)).json().data.steps;
    expect(steps.map((s: { name: string }) => s.name)).toEqual(['open /', 'Shared grp', 'pick']);
    expect(steps[1]).toMatchObject({ shared: true, group: true });
    expect(steps[1].children[0].action.url).toBe('/in');
    const files = (await get(`/v1/tests/${leaf.id}/files`, headers)).json().data;
    expect(Buffer.from(files[0].content, 'base64').toString()).toBe('file body');

    const garbage = await multipart({}, [{ field: 'file', filename: 'x.zip', content: 'not a zip' }]);
    const bad = await t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: garbage.payload,
      headers: { ...garbage.headers, ...headers },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('manages write-only project secrets in the console', async () => {
    const url = `/console/v1/projects/${t.bootstrap.projectId}/secrets`;
    const created = await consoleCall(t.app, cookie, {
      method: 'POST',
      url,
      payload: { name: 'PASSWORD', value: 'hunter2' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.body).not.toContain('hunter2');
    const listed = await consoleCall(t.app, cookie, { method: 'GET', url });
    expect(listed.json().data.map((s: { name: string }) => s.name)).toEqual(['PASSWORD']);
    expect(listed.body).not.toContain('hunter2');
    expect(
      (await consoleCall(t.app, cookie, { method: 'POST', url, payload: { name: '1bad', value: 'x' } }))
        .statusCode,
    ).toBe(400);
    expect((await consoleCall(t.app, cookie, { method: 'DELETE', url: `${url}/PASSWORD` })).statusCode).toBe(
      200,
    );
    expect((await consoleCall(t.app, cookie, { method: 'DELETE', url: `${url}/PASSWORD` })).statusCode).toBe(
      404,
    );
    // A project that is not the organization's: 404 for each call, nothing stored.
    const elsewhere = `/console/v1/projects/${randomUUID()}/secrets`;
    for (const call of [
      { method: 'POST' as const, url: elsewhere, payload: { name: 'TOKEN', value: 'x' } },
      { method: 'GET' as const, url: elsewhere },
      { method: 'DELETE' as const, url: `${elsewhere}/TOKEN` },
    ]) {
      const response = await consoleCall(t.app, cookie, call);
      expect(response.statusCode, call.method).toBe(404);
      expect(response.json().code).toBe('PROJECT_NOT_FOUND');
    }
    expect((await consoleCall(t.app, cookie, { method: 'GET', url })).json().data).toEqual([]);
  });
});
