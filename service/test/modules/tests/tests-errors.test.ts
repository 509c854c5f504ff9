import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, updateTest } from './helpers.ts';

/** The error statuses the spec lists per Tests/Steps endpoint that other suites do not cover. */
describe.each(databaseKinds)('tests and steps error statuses on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  let first: { id: string };
  let second: { id: string };
  let otherBranchId: string;
  let featureBranchId: string;
  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
    first = await createTest(t, { name: 'First', steps: [gotoStep('/a')] });
    second = await createTest(t, { name: 'Second', steps: [gotoStep('/b')] });
    const project = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/projects',
        payload: { name: 'Other' },
      })
    ).json().data as { id: string };
    const branches = (
      await consoleCall(t.app, cookie, { method: 'GET', url: `/console/v1/projects/${project.id}/branches` })
    ).json().data as Array<{ id: string }>;
    otherBranchId = branches[0]?.id as string;
    featureBranchId = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
        payload: { name: 'feature' },
      })
    ).json().data.id;
  });
  afterAll(async () => t?.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t.api({ method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  it('GET /v1/tests/:testId answers 404 Branch not found for a branch of another project or unknown', async () => {
    const foreign = await call('GET', `/v1/tests/${first.id}?branch=${otherBranchId}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    const unknown = await call('GET', `/v1/tests/${first.id}?branch=${crypto.randomUUID()}`);
    expect(unknown.json()).toEqual({ message: 'Branch not found', code: 'BRANCH_NOT_FOUND' });
    const feature = await call('GET', `/v1/tests/${first.id}?branch=${featureBranchId}`);
    expect(feature.statusCode).toBe(200);
    expect(feature.json().test.name).toBe('First');
  });

  it('GET /v1/tests/:testId answers 404 when the test has no working revision on the branch', async () => {
    const branchOnly = await createTest(
      t,
      { name: 'Feature only' },
      { headers: { 'x-branch-id': featureBranchId } },
    );
    expect((await call('GET', `/v1/tests/${branchOnly.id}?branch=${featureBranchId}`)).statusCode).toBe(200);
    const onMain = await call('GET', `/v1/tests/${branchOnly.id}`);
    expect(onMain.statusCode).toBe(404);
    expect(onMain.json()).toEqual({ message: 'Test not found', code: 'TEST_NOT_FOUND' });
    expect((await updateTest(t, branchOnly.id, { name: 'x' })).statusCode).toBe(404);
  });

  it('a revision of another test is not found (detail and steps)', async () => {
    expect((await updateTest(t, second.id, { name: 'Second edited' })).statusCode).toBe(200);
    const saved = await call('POST', `/v1/tests/${second.id}/revisions`, { message: 'v1' });
    expect(saved.statusCode).toBe(200);
    const revisionId = saved.json().data.id as string;
    expect((await call('GET', `/v1/tests/${second.id}/revisions/${revisionId}`)).statusCode).toBe(200);
    const crossed = await call('GET', `/v1/tests/${first.id}/revisions/${revisionId}`);
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json().message).toMatch(/not found/i);
    expect((await call('GET', `/v1/tests/${first.id}/steps?revisionId=${revisionId}`)).statusCode).toBe(404);
    expect((await call('GET', `/v1/tests/${second.id}/steps?revisionId=${revisionId}`)).statusCode).toBe(200);
  });

  it('answers 404 for an unknown test on every per-test route', async () => {
    const id = crypto.randomUUID();
    for (const [method, url, payload] of [
      ['GET', `/v1/tests/${id}/steps`, undefined],
      ['GET', `/v1/tests/${id}/files`, undefined],
      ['GET', `/v1/tests/${id}/revisions`, undefined],
      ['GET', `/v1/tests/${id}/revisions/${crypto.randomUUID()}`, undefined],
      ['POST', `/v1/tests/${id}/revisions`, { message: 'x' }],
      ['POST', `/v1/tests/${id}/duplicate`, {}],
      ['DELETE', `/v1/tests/${id}`, undefined],
      ['POST', '/v1/tests/bulk-update-status', { testIds: [first.id, id], status: 'active' }],
      ['POST', '/v1/tests/bulk-update-tags', { testIds: [id], tagIds: [] }],
      ['POST', '/v1/tests/bulk-delete', { testIds: [id] }],
      ['GET', `/v1/steps/${id}/usage`, undefined],
    ] as const) {
      const response = await call(method, url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    // The partial bulk update changed nothing.
    expect((await call('GET', `/v1/tests/${first.id}`)).json().test.status).toBe('draft');
  });

  it('validates bodies with 400', async () => {
    for (const [url, payload] of [
      [`/v1/tests/${first.id}/revisions`, {}],
      ['/v1/tests/bulk-delete', { testIds: [] }],
      ['/v1/tests/bulk-update-tags', { testIds: [first.id] }],
      ['/v1/tests/bulk-update-status', { testIds: [first.id], status: 'paused' }],
      [`/v1/tests/${first.id}/duplicate`, { name: 'x'.repeat(129) }],
      ['/v1/tests/export', { testIds: [first.id], format: 'zip' }],
    ] as const) {
      const response = await call('POST', url, payload);
      expect(response.statusCode, url).toBe(400);
      expect(typeof response.json().message).toBe('string');
    }
  });

  it('refuses to delete a test an active schedule references (directly or through its directory)', async () => {
    const dir = await createTest(t, { name: 'Scheduled dir', directory: true });
    const leaf = await createTest(t, { name: 'Scheduled leaf', parentTestId: dir.id, status: 'active' });
    const schedule = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/schedules',
      payload: { name: 'Nightly', projectId: t.bootstrap.projectId, testIds: [dir.id], cron: '0 3 * * *' },
    });
    expect(schedule.statusCode).toBeLessThan(300);
    for (const response of [
      await call('DELETE', `/v1/tests/${leaf.id}`),
      await call('DELETE', `/v1/tests/${dir.id}`),
      await call('POST', '/v1/tests/bulk-delete', { testIds: [leaf.id] }),
    ]) {
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toContain('Nightly');
      expect(response.json().schedules).toEqual([{ id: schedule.json().data.id, name: 'Nightly' }]);
    }
    expect((await call('GET', `/v1/tests/${leaf.id}`)).statusCode).toBe(200);
    expect((await call('GET', `/v1/tests/${dir.id}`)).statusCode).toBe(200);
  });

  it('GET /v1/steps/:stepId answers 404 for a step used only on another branch', async () => {
    const onFeature = await createTest(
      t,
      {
        name: 'Feature shared',
        steps: [{ name: 'Only here', shared: true, action: { name: 'goto', url: '/f' } }],
      },
      { headers: { 'x-branch-id': featureBranchId } },
    );
    const steps = (
      await t.api({
        method: 'GET',
        url: `/v1/tests/${onFeature.id}/steps`,
        headers: { 'x-branch-id': featureBranchId },
      })
    ).json().data.steps;
    const stepId = steps[0].stepId as string;
    expect(
      (
        await t.api({
          method: 'GET',
          url: `/v1/steps/${stepId}`,
          headers: { 'x-branch-id': featureBranchId },
        })
      ).statusCode,
    ).toBe(200);
    const onMain = await call('GET', `/v1/steps/${stepId}`);
    expect(onMain.statusCode).toBe(404);
    expect(onMain.json()).toEqual({ message: 'Step not found', code: 'STEP_NOT_FOUND' });
    expect((await call('GET', `/v1/steps/${stepId}/usage`)).statusCode).toBe(404);
  });
});
