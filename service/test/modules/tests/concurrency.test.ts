import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, gotoStep, updateTest } from './helpers.ts';

/**
 * Many clients writing at once, on both databases. Each case fires its requests
 * together, then checks the invariants the spec sets; no outcome of a race is a 5xx.
 */

const steps = (count: number, label: string) =>
  Array.from({ length: count }, (_, index) => gotoStep(`https://example.com/${label}/${index}`));

const statuses = (responses: LightMyRequestResponse[]) => responses.map((response) => response.statusCode);

const expectNo5xx = (responses: LightMyRequestResponse[]) =>
  expect(responses.filter((response) => response.statusCode >= 500).map((response) => response.body)).toEqual(
    [],
  );

describe.each(databaseKinds)('concurrent writes (%s)', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ database, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Every test listed on the branch (no parent filter): id → parentTestId. */
  const everyTest = async () => {
    const response = await t.api({ method: 'GET', url: '/v1/tests?limit=100000' });
    expect(response.statusCode).toBe(200);
    const children = response.json().children as Array<{ id: string; parentTestId: string | null }>;
    return new Map(children.map((child) => [child.id, child.parentTestId]));
  };

  const expectNoOrphans = async () => {
    const tests = await everyTest();
    const orphans = [...tests].filter(([, parent]) => parent !== null && !tests.has(parent));
    expect(orphans).toEqual([]);
  };

  const createRaw = async (testData: Record<string, unknown>) => {
    const form = new FormData();
    form.append('testData', JSON.stringify(testData));
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    return t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type') as string },
    });
  };

  it('case 1: deleting a directory while tests are created in it leaves no orphan', async () => {
    const directory = await createTest(t, { name: 'doomed', directory: true });
    const creates = Array.from({ length: 30 }, (_, index) =>
      createRaw({ name: `child ${index}`, parentTestId: directory.id, steps: steps(1, `c${index}`) }),
    );
    const deletion = t.api({ method: 'DELETE', url: `/v1/tests/${directory.id}` });
    const more = Array.from({ length: 10 }, (_, index) =>
      createRaw({ name: `late ${index}`, parentTestId: directory.id }),
    );
    const results = await Promise.all([...creates, deletion, ...more]);
    expectNo5xx(results);
    expect((await deletion).statusCode).toBe(200);
    for (const response of [...(await Promise.all(creates)), ...(await Promise.all(more))]) {
      expect([200, 404]).toContain(response.statusCode);
      if (response.statusCode === 404) expect(response.json().message).toBe('Parent test not found');
      else {
        const read = await t.api({ method: 'GET', url: `/v1/tests/${response.json().data.id}` });
        expect(read.statusCode).toBe(404);
      }
    }
    await expectNoOrphans();
  });

  it('case 2: a duplicate during updates is a whole copy, never partial', async () => {
    const directory = await createTest(t, { name: 'source', directory: true });
    const children = [];
    for (let index = 0; index < 12; index++)
      children.push(
        await createTest(t, { name: `s${index}`, parentTestId: directory.id, steps: steps(3, `s${index}`) }),
      );
    const updates = children.flatMap((child, index) => [
      updateTest(t, child.id, { steps: steps(2 + (index % 3), `u${index}`) }),
      updateTest(t, child.id, { steps: steps(4, `v${index}`), name: `s${index} renamed` }),
    ]);
    const duplicates = Array.from({ length: 3 }, (_, index) =>
      t.api({
        method: 'POST',
        url: `/v1/tests/${directory.id}/duplicate`,
        payload: { name: `copy ${index}` },
      }),
    );
    const results = await Promise.all([...updates, ...duplicates]);
    expectNo5xx(results);
    expect(statuses(await Promise.all(updates)).every((status) => status === 200)).toBe(true);
    for (const duplicate of await Promise.all(duplicates)) {
      expect(duplicate.statusCode).toBe(200);
      const copy = await t.api({ method: 'GET', url: `/v1/tests?testId=${duplicate.json().data.id}` });
      const copied = copy.json().children as Array<{ id: string; stepsCount: number }>;
      expect(copied).toHaveLength(children.length);
      for (const child of copied) {
        const tree = await t.api({ method: 'GET', url: `/v1/tests/${child.id}/steps` });
        const count = (tree.json().data.steps as unknown[]).length;
        expect(child.stepsCount).toBeGreaterThanOrEqual(2);
        expect(count).toBe(child.stepsCount);
      }
    }
  });

  it('case 3: updating children while their directory is deleted gives 200 or 404, never 500', async () => {
    const directory = await createTest(t, { name: 'going', directory: true });
    const children = [];
    for (let index = 0; index < 10; index++)
      children.push(
        await createTest(t, { name: `g${index}`, parentTestId: directory.id, steps: steps(2, `g${index}`) }),
      );
    const updates = children.flatMap((child, index) => [
      updateTest(t, child.id, { steps: steps(3, `x${index}`) }),
      updateTest(t, child.id, { steps: steps(1, `y${index}`), status: 'active' }),
    ]);
    const deletion = t.api({ method: 'DELETE', url: `/v1/tests/${directory.id}` });
    const results = await Promise.all([...updates.slice(0, 10), deletion, ...updates.slice(10)]);
    expectNo5xx(results);
    expect((await deletion).statusCode).toBe(200);
    for (const status of statuses(await Promise.all(updates))) expect([200, 404]).toContain(status);
    for (const child of children)
      expect((await t.api({ method: 'GET', url: `/v1/tests/${child.id}` })).statusCode).toBe(404);
    await expectNoOrphans();
  });

  it('case 4: concurrent saves of one unsaved state make exactly one revision', async () => {
    const test = await createTest(t, { name: 'snap', steps: steps(2, 'snap') });
    const saves = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        t.api({ method: 'POST', url: `/v1/tests/${test.id}/revisions`, payload: { message: `m${index}` } }),
      ),
    );
    expectNo5xx(saves);
    const codes = statuses(saves).sort();
    expect(codes).toEqual([200, ...Array(9).fill(400)]);
    for (const save of saves.filter((response) => response.statusCode === 400))
      expect(save.json().message).toBe('No unsaved changes to save as a revision');
    const revisions = await t.api({ method: 'GET', url: `/v1/tests/${test.id}/revisions` });
    expect(revisions.json().data).toHaveLength(1);
  });

  it('case 5: concurrent updates without editVersion all apply (last writer wins), never 409', async () => {
    const test = await createTest(t, { name: 'hot', steps: steps(1, 'hot') });
    const before = (await t.api({ method: 'GET', url: `/v1/tests/${test.id}` })).json().test.editVersion;
    const updates = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        updateTest(t, test.id, { name: `hot ${index}`, steps: steps(1 + (index % 3), `h${index}`) }),
      ),
    );
    expect(statuses(updates)).toEqual(Array(20).fill(200));
    const after = (await t.api({ method: 'GET', url: `/v1/tests/${test.id}` })).json().test;
    expect(after.editVersion).toBe(before + 20);
    const tree = await t.api({ method: 'GET', url: `/v1/tests/${test.id}/steps` });
    expect((tree.json().data.steps as unknown[]).length).toBe(after.stepsCount);
  });

  it('an edit conflict is still a 409 when editVersion is sent and stale', async () => {
    const test = await createTest(t, { name: 'versioned' });
    const version = (await t.api({ method: 'GET', url: `/v1/tests/${test.id}` })).json().test.editVersion;
    const updates = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        updateTest(t, test.id, { name: `v${index}`, editVersion: version }),
      ),
    );
    expect(statuses(updates).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });
});
