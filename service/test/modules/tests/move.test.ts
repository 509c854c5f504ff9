import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, updateTest } from './helpers.ts';

/** `PUT /v1/tests/:testId` with `testData.parentTestId`: the documented extension that moves a test. */
describe.each(databaseKinds)('moving tests between directories on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ database });
  });
  afterAll(async () => t?.close());

  const detail = async (testId: string) =>
    (await t.api({ method: 'GET', url: `/v1/tests/${testId}` })).json();

  it('moves a leaf into a directory and a directory with its subtree back to the top level', async () => {
    const from = await createTest(t, { name: 'From', directory: true });
    const to = await createTest(t, { name: 'To', directory: true });
    const leaf = await createTest(t, { name: 'Leaf', parentTestId: from.id, steps: [gotoStep('/')] });
    const moved = await updateTest(t, leaf.id, { parentTestId: to.id });
    expect(moved.statusCode).toBe(200);
    expect((await detail(leaf.id)).test).toMatchObject({ parentTestId: to.id, name: 'Leaf' });
    expect((await detail(leaf.id)).parentDirectory).toMatchObject({ id: to.id, name: 'To' });
    expect((await detail(from.id)).children).toEqual([]);
    expect((await detail(to.id)).children.map((child: { id: string }) => child.id)).toEqual([leaf.id]);

    // A directory moves with what it holds.
    expect((await updateTest(t, to.id, { parentTestId: from.id })).statusCode).toBe(200);
    expect((await detail(to.id)).test.parentTestId).toBe(from.id);
    expect((await detail(leaf.id)).test.parentTestId).toBe(to.id);
    expect((await updateTest(t, to.id, { parentTestId: null })).statusCode).toBe(200);
    expect((await detail(to.id)).test.parentTestId).toBeNull();
    expect((await detail(to.id)).parentDirectory).toBeNull();
  });

  it('refuses moves into itself, a descendant, a leaf test or an unknown directory, changing nothing', async () => {
    const outer = await createTest(t, { name: 'Outer', directory: true });
    const inner = await createTest(t, { name: 'Inner', directory: true, parentTestId: outer.id });
    const deepest = await createTest(t, { name: 'Deepest', directory: true, parentTestId: inner.id });
    const leaf = await createTest(t, { name: 'Plain', steps: [gotoStep('/')] });
    const cases: Array<[string, string, number, string]> = [
      [outer.id, outer.id, 400, 'parentTestId: a test cannot be moved into itself'],
      [
        outer.id,
        deepest.id,
        400,
        'parentTestId: a directory cannot be moved into one of its own descendants',
      ],
      [
        inner.id,
        deepest.id,
        400,
        'parentTestId: a directory cannot be moved into one of its own descendants',
      ],
      [outer.id, leaf.id, 400, 'parentTestId: the parent test is not a directory'],
      [outer.id, crypto.randomUUID(), 404, 'Parent test not found'],
    ];
    for (const [testId, target, status, message] of cases) {
      // The rename in the same request must not be half-applied when the move is refused.
      const response = await updateTest(t, testId, { name: 'Renamed', parentTestId: target });
      expect(response.statusCode, message).toBe(status);
      expect(response.json()).toEqual({ message, code: expect.stringMatching(/^[A-Z_]+$/) });
    }
    expect((await detail(outer.id)).test).toMatchObject({
      name: 'Outer',
      parentTestId: null,
      editVersion: 1,
    });
    expect((await detail(inner.id)).test).toMatchObject({ name: 'Inner', parentTestId: outer.id });

    const notUuid = await updateTest(t, leaf.id, { parentTestId: 'nope' });
    expect(notUuid.statusCode).toBe(400);
    expect(notUuid.json().message).toMatch(/^testData\.parentTestId/);
  });

  it('does not move into a directory of another project', async () => {
    const cookie = await t.consoleCookie();
    const project = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/projects',
        payload: { name: 'Elsewhere' },
      })
    ).json().data as { id: string };
    const foreign = await createTest(
      t,
      { name: 'Foreign dir', directory: true },
      { headers: { 'x-project-id': project.id } },
    );
    const leaf = await createTest(t, { name: 'Stays', steps: [gotoStep('/')] });
    const response = await updateTest(t, leaf.id, { parentTestId: foreign.id });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ message: 'Parent test not found', code: 'PARENT_TEST_NOT_FOUND' });
    expect((await detail(leaf.id)).test.parentTestId).toBeNull();
  });

  it('two crossing moves at once never build a cycle', async () => {
    const a = await createTest(t, { name: 'A', directory: true });
    const b = await createTest(t, { name: 'B', directory: true });
    const [intoB, intoA] = await Promise.all([
      updateTest(t, a.id, { parentTestId: b.id }),
      updateTest(t, b.id, { parentTestId: a.id }),
    ]);
    expect([intoB.statusCode, intoA.statusCode].sort()).toEqual([200, 400]);
    const parents = [(await detail(a.id)).test.parentTestId, (await detail(b.id)).test.parentTestId];
    // Exactly one of them is inside the other; neither is its own ancestor.
    expect(parents.filter((parent) => parent === null)).toHaveLength(1);
  });
});
