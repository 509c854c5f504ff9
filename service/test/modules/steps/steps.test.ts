import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCompilableTests } from '../../../src/modules/tests/executable.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, multipart } from '../tests/helpers.ts';

interface StepItem {
  id: string;
  revisionStepId: string;
  stepId: string;
  name: string;
  action: Record<string, unknown>;
  group: boolean;
  shared: boolean;
  order: number;
  children: StepItem[];
}

describe.each(databaseKinds)('/v1/steps on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ database });
    cookie = await t.consoleCookie();
  });
  afterAll(async () => t?.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.api({ method: 'GET', url, headers });
  const stepsOf = async (testId: string, headers: Record<string, string> = {}) =>
    (await get(`/v1/tests/${testId}/steps`, headers)).json().data.steps as StepItem[];
  const putChildren = async (stepId: string, children: unknown, headers: Record<string, string> = {}) => {
    const form = await multipart({ children: JSON.stringify(children) });
    return t.api({
      method: 'PUT',
      url: `/v1/steps/${stepId}/children`,
      payload: form.payload,
      headers: { ...form.headers, ...headers },
    });
  };
  const detail = async (testId: string, headers: Record<string, string> = {}) =>
    (await get(`/v1/tests/${testId}`, headers)).json().test as { editVersion: number };

  it('GET /v1/steps/:id/children lists a shared group; 404 for unknown ids', async () => {
    const test = await createTest(t, {
      name: 'Children reader',
      steps: [
        {
          name: 'Sign in',
          shared: true,
          action: { name: 'group' },
          children: [
            gotoStep('/login', 'open login'),
            { name: 'submit', action: { name: 'click', selector: '#go' } },
          ],
        },
      ],
    });
    const [group] = await stepsOf(test.id);
    if (!group) throw new Error('no group');
    const response = await get(`/v1/steps/${group.stepId}/children`);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data.step).toEqual({
      id: group.stepId,
      name: 'Sign in',
      action: { name: 'group' },
      shared: true,
      group: true,
    });
    expect(data.children).toEqual([
      {
        id: group.children[0]?.id,
        stepId: group.children[0]?.stepId,
        name: 'open login',
        action: { name: 'goto', url: '/login' },
        order: 0,
      },
      {
        id: group.children[1]?.id,
        stepId: group.children[1]?.stepId,
        name: 'submit',
        action: { name: 'click', selector: '#go' },
        order: 1,
      },
    ]);
    const missing = await get(`/v1/steps/${crypto.randomUUID()}/children`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Step not found', code: 'STEP_NOT_FOUND' });
    expect((await get(`/v1/steps/${crypto.randomUUID()}`)).statusCode).toBe(404);
    expect((await get('/v1/steps/not-a-uuid/children')).statusCode).toBe(400);
  });

  it('PUT /v1/steps/:id/children updates in place, creates and deletes in a non-shared group', async () => {
    const test = await createTest(t, {
      name: 'Group editor',
      steps: [
        gotoStep('/'),
        {
          name: 'Form',
          action: { name: 'group' },
          children: [
            { name: 'name', action: { name: 'fill', selector: '#name', value: 'Ann' } },
            { name: 'mail', action: { name: 'fill', selector: '#mail', value: 'a@b.c' } },
            { name: 'old', action: { name: 'click', selector: '#old' } },
          ],
        },
      ],
    });
    const before = await stepsOf(test.id);
    const group = before[1] as StepItem;
    const [name, mail] = group.children as [StepItem, StepItem, StepItem];
    const version = (await detail(test.id)).editVersion;

    const response = await putChildren(group.id, [
      {
        revisionStepId: mail.id,
        name: 'mail',
        action: { name: 'fill', selector: '#mail', value: 'z@y.x' },
        order: 0,
      },
      { name: 'submit', action: { name: 'click', selector: '#submit' }, order: 2 },
      {
        revisionStepId: name.id,
        name: 'full name',
        action: { name: 'fill', selector: '#name', value: 'Bob' },
        order: 1,
      },
    ]);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data.step).toEqual({ id: group.id, name: 'Form' });
    expect(data.children.map((child: { name: string; order: number }) => [child.name, child.order])).toEqual([
      ['mail', 0],
      ['full name', 1],
      ['submit', 2],
    ]);
    expect(data.children[0].id).toBe(mail.id);
    expect(data.children[1].id).toBe(name.id);

    const after = (await stepsOf(test.id))[1] as StepItem;
    expect(after.children.map((child) => [child.id, child.name, child.action])).toEqual([
      [mail.id, 'mail', { name: 'fill', selector: '#mail', value: 'z@y.x' }],
      [name.id, 'full name', { name: 'fill', selector: '#name', value: 'Bob' }],
      [data.children[2].id, 'submit', { name: 'click', selector: '#submit' }],
    ]);
    // In place: the same canonical steps; the removed child is gone from the tree.
    expect(after.children[0]?.stepId).toBe(mail.stepId);
    expect(after.children[1]?.stepId).toBe(name.stepId);
    expect(after.children.some((child) => child.name === 'old')).toBe(false);
    expect((await detail(test.id)).editVersion).toBeGreaterThan(version);

    const invalid = await putChildren(group.id, [{ name: 'bad', action: { name: 'fill', selector: '#x' } }]);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().message).toContain('action.value');
    const notArray = await putChildren(group.id, { name: 'x' });
    expect(notArray.statusCode).toBe(400);
    const notGroup = await putChildren(before[0]?.id as string, []);
    expect(notGroup.statusCode).toBe(400);
    expect(notGroup.json().message).toBe('Step is not a group');
    expect((await putChildren(crypto.randomUUID(), [])).statusCode).toBe(404);
    // Nothing changed by the refused requests.
    expect(((await stepsOf(test.id))[1] as StepItem).children).toHaveLength(3);
  });

  it('PUT /v1/steps/:id/children replaces a shared group’s children for every test using it', async () => {
    const first = await createTest(t, {
      name: 'Shared group A',
      steps: [
        {
          name: 'Checkout',
          shared: true,
          action: { name: 'group' },
          children: [gotoStep('/cart', 'cart'), { name: 'pay', action: { name: 'click', selector: '#pay' } }],
        },
      ],
    });
    const group = (await stepsOf(first.id))[0] as StepItem;
    const second = await createTest(t, {
      name: 'Shared group B',
      steps: [{ shared: true, stepId: group.stepId }],
    });
    const [cart, pay] = group.children as [StepItem, StepItem];

    const response = await putChildren(group.id, [
      { revisionStepId: pay.id, name: 'pay now', action: { name: 'click', selector: '#pay-now' } },
      { name: 'done', action: { name: 'assertText', selector: 'h1', value: 'Thanks' } },
    ]);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data.step).toEqual({ id: group.id, name: 'Checkout' });
    expect(
      data.children.map((child: { id: string; name: string; order: number }) => [child.name, child.order]),
    ).toEqual([
      ['pay now', 0],
      ['done', 1],
    ]);
    expect(data.children[0].id).toBe(pay.id);

    for (const testId of [first.id, second.id]) {
      const [shared] = await stepsOf(testId);
      expect(shared?.stepId).toBe(group.stepId);
      expect(shared?.children.map((child) => [child.name, child.action])).toEqual([
        ['pay now', { name: 'click', selector: '#pay-now' }],
        ['done', { name: 'assertText', selector: 'h1', value: 'Thanks' }],
      ]);
    }
    expect(shared(await get(`/v1/steps/${group.stepId}/children`))).toEqual(['pay now', 'done']);
    expect(pay.stepId).toBe(((await stepsOf(first.id))[0] as StepItem).children[0]?.stepId);
    expect(cart.id).not.toBe(data.children[1].id);
  });

  it('replacing a shared group’s children on a branch is copy-on-write when another branch uses it', async () => {
    const test = await createTest(t, {
      name: 'Shared group COW',
      steps: [
        {
          name: 'Login flow',
          shared: true,
          action: { name: 'group' },
          children: [gotoStep('/login', 'login'), { name: 'go', action: { name: 'click', selector: '#go' } }],
        },
      ],
    });
    const branch = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: `/console/v1/projects/${t.bootstrap.projectId}/branches`,
        payload: { name: `steps-${database}` },
      })
    ).json().data as { id: string };
    const onBranch = { 'x-branch-id': branch.id };
    const group = (await stepsOf(test.id, onBranch))[0] as StepItem;
    const go = group.children[1] as StepItem;
    const response = await putChildren(
      group.id,
      [{ revisionStepId: go.id, name: 'go fast', action: { name: 'click', selector: '#fast' } }],
      onBranch,
    );
    expect(response.statusCode).toBe(200);

    const onFeature = (await stepsOf(test.id, onBranch))[0] as StepItem;
    expect(onFeature.stepId).not.toBe(group.stepId);
    expect(onFeature.children.map((child) => [child.name, child.action])).toEqual([
      ['go fast', { name: 'click', selector: '#fast' }],
    ]);
    const onMain = (await stepsOf(test.id))[0] as StepItem;
    expect(onMain.stepId).toBe(group.stepId);
    expect(onMain.children.map((child) => [child.name, child.action])).toEqual([
      ['login', { name: 'goto', url: '/login' }],
      ['go', { name: 'click', selector: '#go' }],
    ]);
  });

  it('PUT /v1/steps/:id/children stores uploads: on the test for a plain group, on the child for a shared one', async () => {
    const plain = await createTest(t, {
      name: 'Upload group',
      steps: [{ name: 'G', action: { name: 'group' }, children: [gotoStep('/')] }],
    });
    const plainGroup = (await stepsOf(plain.id))[0] as StepItem;
    const upload = { name: 'pick', action: { name: 'setInputFiles', selector: '#f', files: ['cv.pdf'] } };
    const form = await multipart({ children: JSON.stringify([upload]) }, [
      { filename: 'cv.pdf', content: 'pdf!' },
    ]);
    const stored = await t.api({
      method: 'PUT',
      url: `/v1/steps/${plainGroup.id}/children`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(stored.statusCode).toBe(200);
    const files = (await get(`/v1/tests/${plain.id}/files`)).json().data as Array<{
      filename: string;
      content: string;
    }>;
    expect(files.map((file) => [file.filename, Buffer.from(file.content, 'base64').toString()])).toEqual([
      ['cv.pdf', 'pdf!'],
    ]);

    const a = await createTest(t, {
      name: 'Shared upload A',
      steps: [{ name: 'SG', shared: true, action: { name: 'group' }, children: [gotoStep('/')] }],
    });
    const sharedGroup = (await stepsOf(a.id))[0] as StepItem;
    const b = await createTest(t, {
      name: 'Shared upload B',
      steps: [{ shared: true, stepId: sharedGroup.stepId }],
    });
    const unnamed = await multipart({ children: JSON.stringify([upload]) }, [
      { filename: 'other.pdf', content: 'x' },
    ]);
    const refused = await t.api({
      method: 'PUT',
      url: `/v1/steps/${sharedGroup.id}/children`,
      payload: unnamed.payload,
      headers: unnamed.headers,
    });
    expect(refused.statusCode).toBe(400);
    expect(((await stepsOf(a.id))[0] as StepItem).children.map((child) => child.name)).toEqual(['open /']);
    const named = await multipart({ children: JSON.stringify([upload]) }, [
      { filename: 'cv.pdf', content: 'shared pdf' },
    ]);
    const ok = await t.api({
      method: 'PUT',
      url: `/v1/steps/${sharedGroup.id}/children`,
      payload: named.payload,
      headers: named.headers,
    });
    expect(ok.statusCode).toBe(200);
    const loaded = await loadCompilableTests(t.ctx.db, t.ctx.blobs, {
      projectId: t.bootstrap.projectId,
      branchId: t.bootstrap.branchId,
      testIds: [a.id, b.id],
    });
    for (const test of loaded) {
      const child = test.steps[0]?.children?.[0];
      expect(test.files).toEqual([
        { filename: 'cv.pdf', content: Buffer.from('shared pdf'), stepId: child?.id },
      ]);
    }
  });

  it('PUT /v1/steps/:id/update refuses more than one file; DELETE answers 404 and deletes unused steps', async () => {
    const test = await createTest(t, {
      name: 'Uploader',
      steps: [
        { name: 'Upload', shared: true, action: { name: 'setInputFiles', selector: '#f', files: ['a.txt'] } },
      ],
    });
    const step = (await stepsOf(test.id))[0] as StepItem;
    const form = await multipart({ stepData: JSON.stringify({ name: 'Upload two' }) }, [
      { filename: 'a.txt', content: 'a' },
      { filename: 'b.txt', content: 'b' },
    ]);
    const refused = await t.api({
      method: 'PUT',
      url: `/v1/steps/${step.stepId}/update`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('at most 1 file');
    expect((await get(`/v1/steps/${step.stepId}`)).json().data.name).toBe('Upload');

    const missingData = await multipart({});
    const noData = await t.api({
      method: 'PUT',
      url: `/v1/steps/${step.stepId}/update`,
      payload: missingData.payload,
      headers: missingData.headers,
    });
    expect(noData.statusCode).toBe(400);
    const unknown = await multipart({ stepData: JSON.stringify({ name: 'x' }) });
    expect(
      (
        await t.api({
          method: 'PUT',
          url: `/v1/steps/${crypto.randomUUID()}/update`,
          payload: unknown.payload,
          headers: unknown.headers,
        })
      ).statusCode,
    ).toBe(404);

    const missing = await t.api({ method: 'DELETE', url: `/v1/steps/${crypto.randomUUID()}` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Step not found', code: 'STEP_NOT_FOUND' });

    // Once no test uses it, the shared step can be deleted.
    const emptied = await multipart({ testData: JSON.stringify({ steps: [gotoStep('/')] }) });
    expect(
      (
        await t.api({
          method: 'PUT',
          url: `/v1/tests/${test.id}`,
          payload: emptied.payload,
          headers: emptied.headers,
        })
      ).statusCode,
    ).toBe(200);
    const deleted = await t.api({ method: 'DELETE', url: `/v1/steps/${step.stepId}` });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({
      message: 'Step deleted',
      data: { id: step.stepId, shared: true, group: false },
    });
    expect((await get(`/v1/steps/${step.stepId}`)).statusCode).toBe(404);
  });
});

function shared(response: { json(): unknown }): string[] {
  const body = response.json() as { data: { children: Array<{ name: string }> } };
  return body.data.children.map((child) => child.name);
}
