import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandRunTargets, loadCompilableTests } from '../../../src/modules/tests/executable.ts';
import { loadProjectSecrets } from '../../../src/modules/tests/secrets-repository.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, multipart } from './helpers.ts';

describe.each(databaseKinds)('executable tests on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  let scope: { projectId: string; branchId: string; organizationId: string };
  const ids: Record<string, string> = {};
  let tagId: string;
  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
    scope = {
      projectId: t.bootstrap.projectId,
      branchId: t.bootstrap.branchId,
      organizationId: t.bootstrap.organizationId,
    };
    tagId = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: 'nightly' },
      })
    ).json().data.id;
    ids.root = (await createTest(t, { name: 'Root', directory: true, status: 'active' })).id;
    ids.active = (
      await createTest(t, {
        name: 'Active leaf',
        parentTestId: ids.root,
        status: 'active',
        steps: [gotoStep('/')],
      })
    ).id;
    ids.draft = (await createTest(t, { name: 'Draft leaf', parentTestId: ids.root, status: 'draft' })).id;
    ids.archived = (
      await createTest(t, { name: 'Archived leaf', parentTestId: ids.root, status: 'archived' })
    ).id;
    ids.sub = (
      await createTest(t, { name: 'Sub', directory: true, status: 'active', parentTestId: ids.root })
    ).id;
    ids.deep = (
      await createTest(t, { name: 'Deep leaf', parentTestId: ids.sub, status: 'active', tags: [tagId] })
    ).id;
    ids.taggedDraft = (await createTest(t, { name: 'Tagged draft', status: 'draft', tags: [tagId] })).id;
  });
  afterAll(async () => t?.close());

  it('expands a directory to its active leaf descendants only', async () => {
    const result = await expandRunTargets(t.ctx.db, { ...scope, testIds: [ids.root as string] });
    expect(result.target).toEqual({ type: 'directory', id: ids.root, name: 'Root' });
    expect(result.tests.map((test) => test.name).sort()).toEqual(['Active leaf', 'Deep leaf']);
  });

  it('targets a single leaf as a test, and several ids as a directory-style target', async () => {
    const single = await expandRunTargets(t.ctx.db, { ...scope, testIds: [ids.active as string] });
    expect(single).toEqual({
      tests: [{ id: ids.active, name: 'Active leaf' }],
      leftOut: [],
      target: { type: 'test', id: ids.active, name: 'Active leaf' },
    });
    const draft = await expandRunTargets(t.ctx.db, { ...scope, testIds: [ids.draft as string] });
    expect(draft.tests).toEqual([]);
    expect(draft.leftOut).toEqual([{ testId: ids.draft, name: expect.any(String), status: 'draft' }]);
    const several = await expandRunTargets(t.ctx.db, {
      ...scope,
      testIds: [ids.active as string, ids.sub as string, ids.archived as string],
    });
    expect(several.target.type).toBe('directory');
    expect(several.tests.map((test) => test.name).sort()).toEqual(['Active leaf', 'Deep leaf']);
    expect(several.leftOut).toEqual([{ testId: ids.archived, name: expect.any(String), status: 'archived' }]);
  });

  it('expands a tag to the active leaves carrying it (and under tagged directories)', async () => {
    const result = await expandRunTargets(t.ctx.db, { ...scope, tagId });
    expect(result.target).toEqual({ type: 'tag', id: tagId, name: 'nightly' });
    expect(result.tests).toEqual([{ id: ids.deep, name: 'Deep leaf' }]);
  });

  it('answers 404 for unknown tests and tags, and for a test without a working revision on the branch', async () => {
    await expect(
      expandRunTargets(t.ctx.db, { ...scope, testIds: [crypto.randomUUID()] }),
    ).rejects.toMatchObject({
      statusCode: 404,
      message: 'Test not found',
    });
    await expect(expandRunTargets(t.ctx.db, { ...scope, tagId: crypto.randomUUID() })).rejects.toMatchObject({
      statusCode: 404,
      message: 'Tag not found',
    });
    const branch = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/projects/${scope.projectId}/branches`,
        payload: { name: `exec-${database}` },
      })
    ).json().data as { id: string };
    const onBranchOnly = await createTest(
      t,
      { name: 'Branch only', status: 'active' },
      { headers: { 'x-branch-id': branch.id } },
    );
    await expect(expandRunTargets(t.ctx.db, { ...scope, testIds: [onBranchOnly.id] })).rejects.toMatchObject({
      statusCode: 404,
    });
    const onBranch = await expandRunTargets(t.ctx.db, {
      ...scope,
      branchId: branch.id,
      testIds: [onBranchOnly.id],
    });
    expect(onBranch.tests).toEqual([{ id: onBranchOnly.id, name: 'Branch only' }]);
  });

  it('loads compilable tests with shared steps resolved and files attached to their steps', async () => {
    const shared = await createTest(
      t,
      {
        name: 'Uses shared',
        status: 'active',
        vars: { user: 'ann' },
        config: { use: { baseURL: 'http://127.0.0.1:9' } },
        steps: [
          gotoStep('/'),
          {
            name: 'Login',
            shared: true,
            action: { name: 'group' },
            children: [
              { name: 'user', action: { name: 'fill', selector: '#u', value: '{{vars.user}}' } },
              { name: 'upload', action: { name: 'setInputFiles', selector: '#f', files: ['id.png'] } },
            ],
          },
        ],
      },
      { files: [{ filename: 'id.png', content: Buffer.from([1, 2, 3]) }] },
    );
    const [loaded, other] = await loadCompilableTests(t.ctx.db, t.ctx.blobs, {
      projectId: scope.projectId,
      branchId: scope.branchId,
      testIds: [shared.id, ids.active as string],
    });
    expect(other?.id).toBe(ids.active);
    expect(loaded).toMatchObject({
      id: shared.id,
      name: 'Uses shared',
      type: 'ui',
      vars: { user: 'ann' },
      config: { use: { baseURL: 'http://127.0.0.1:9' } },
    });
    const steps = loaded?.steps ?? [];
    expect(steps.map((step) => step.name)).toEqual(['open /', 'Login']);
    expect(steps[1]?.children?.map((child) => [child.name, child.action])).toEqual([
      ['user', { name: 'fill', selector: '#u', value: '{{vars.user}}' }],
      ['upload', { name: 'setInputFiles', selector: '#f', files: ['id.png'] }],
    ]);
    const upload = steps[1]?.children?.[1];
    expect(loaded?.files).toEqual([
      { filename: 'id.png', content: Buffer.from([1, 2, 3]), stepId: upload?.id },
    ]);
  });

  it('attaches files uploaded to a shared step to every test using it', async () => {
    const test = await createTest(t, {
      name: 'Shared upload',
      status: 'active',
      steps: [
        {
          name: 'attach',
          shared: true,
          action: { name: 'setInputFiles', selector: '#f', files: ['data.csv'] },
        },
      ],
    });
    const view = (await t.api({ method: 'GET', url: `/v1/tests/${test.id}/steps` })).json().data.steps[0];
    const form = await multipart({ stepData: JSON.stringify({ name: 'attach csv' }) }, [
      { filename: 'data.csv', content: 'a,b\n1,2\n' },
    ]);
    const updated = await t.api({
      method: 'PUT',
      url: `/v1/steps/${view.stepId}/update`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(updated.statusCode).toBe(200);
    const [loaded] = await loadCompilableTests(t.ctx.db, t.ctx.blobs, {
      projectId: scope.projectId,
      branchId: scope.branchId,
      testIds: [test.id],
    });
    expect(loaded?.steps[0]?.name).toBe('attach csv');
    expect(loaded?.files).toEqual([
      { filename: 'data.csv', content: Buffer.from('a,b\n1,2\n'), stepId: view.id },
    ]);
  });

  it('loads the project secrets (values only here)', async () => {
    expect(await loadProjectSecrets(t.ctx.db, scope.projectId)).toEqual({});
    for (const [name, value] of [
      ['API_TOKEN', 'tok-1'],
      ['PASSWORD', 'pw'],
    ])
      expect(
        (
          await consoleCall(t.app, cookie, {
            method: 'POST',
            url: `/console/v1/projects/${scope.projectId}/secrets`,
            payload: { name, value },
          })
        ).statusCode,
      ).toBe(201);
    expect(await loadProjectSecrets(t.ctx.db, scope.projectId)).toEqual({
      API_TOKEN: 'tok-1',
      PASSWORD: 'pw',
    });
    const listed = await consoleCall(t.app, cookie, {
      method: 'GET',
      url: `/console/v1/projects/${scope.projectId}/secrets`,
    });
    expect(listed.body).not.toContain('tok-1');
  });
});
