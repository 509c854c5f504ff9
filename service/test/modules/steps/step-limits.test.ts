import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { zipFiles } from '../../../src/modules/tests/archive.ts';
import { exportLimits } from '../../../src/modules/tests/transfer.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';
import { createTest, multipart, updateTest } from '../tests/helpers.ts';

/**
 * MAX_STEPS_PER_TEST and MAX_STEP_TREE_BYTES, lowered through the environment (5 steps, 2048
 * bytes), on every write path that adds steps: at the limit accepted, one past it refused with a
 * 400 naming the limit and the setting, and nothing of the refused write stored.
 */

interface StepItem {
  id: string;
  stepId: string;
  name: string;
  metadata: Record<string, unknown> | null;
  children: StepItem[];
}

const maxSteps = 5;
const maxBytes = 2048;
const tooMany = (n: number, who = 'this one') =>
  `A test has at most ${maxSteps} steps (MAX_STEPS_PER_TEST); ${who} would have ${n}`;
const tooLarge = (n: number, who = 'this one') =>
  `A test's steps take at most ${maxBytes} bytes (MAX_STEP_TREE_BYTES); ${who} would take ${n}`;

/** `s<i>`: 27 bytes as stored (name 2, action `{"name":"goto","url":"/"}` 25). */
const step = (i: number) => ({ name: `s${i}`, action: { name: 'goto', url: '/' } });
const steps = (n: number, from = 0) => Array.from({ length: n }, (_, i) => step(from + i));
const group = (name: string, children: unknown[], extra: Record<string, unknown> = {}) => ({
  name,
  action: { name: 'group' },
  children,
  ...extra,
});
/** A step of exactly `bytes` bytes as stored: name `p` (1), the goto action (25), metadata padding. */
const padded = (bytes: number) => ({
  name: 'p',
  action: { name: 'goto', url: '/' },
  metadata: { p: 'x'.repeat(bytes - 1 - 25 - '{"p":""}'.length) },
});

describe.each(databaseKinds)('step tree limits on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      database,
      env: { MAX_STEPS_PER_TEST: String(maxSteps), MAX_STEP_TREE_BYTES: String(maxBytes) },
    });
  });
  afterAll(async () => t?.close());
  afterEach(() => {
    exportLimits.maxSteps = 250_000;
    exportLimits.maxStepBytes = 128 * 1024 * 1024;
  });

  const stepsOf = async (testId: string) =>
    (await t.api({ method: 'GET', url: `/v1/tests/${testId}/steps` })).json().data.steps as StepItem[];
  const testsNamed = async (name: string) =>
    (await t.api({ method: 'GET', url: `/v1/tests?name=${encodeURIComponent(name)}` })).json()
      .children as Array<{ id: string; name: string; stepsCount: number; editVersion: number }>;
  const post = async (testData: Record<string, unknown>) => {
    const form = await multipart({ testData: JSON.stringify(testData) });
    return t.api({ method: 'POST', url: '/v1/tests', payload: form.payload, headers: form.headers });
  };
  const putChildren = async (revisionStepId: string, children: unknown[]) => {
    const form = await multipart({ children: JSON.stringify(children) });
    return t.api({
      method: 'PUT',
      url: `/v1/steps/${revisionStepId}/children`,
      payload: form.payload,
      headers: form.headers,
    });
  };
  const updateStep = async (stepId: string, stepData: Record<string, unknown>) => {
    const form = await multipart({ stepData: JSON.stringify(stepData) });
    return t.api({
      method: 'PUT',
      url: `/v1/steps/${stepId}/update`,
      payload: form.payload,
      headers: form.headers,
    });
  };
  const count = (items: StepItem[]): number => items.reduce((sum, item) => sum + 1 + count(item.children), 0);

  it('creates (multipart and JSON body) at the step limit, groups counted, and refuses one more', async () => {
    expect((await post({ name: 'five flat', steps: steps(5) })).statusCode).toBe(200);
    const inGroup = await createTest(t, { name: 'five grouped', steps: [group('g', steps(4))] });
    expect(count(await stepsOf(inGroup.id))).toBe(5);

    const flat = await post({ name: 'six flat', steps: steps(6) });
    expect(flat.statusCode).toBe(400);
    expect(flat.json()).toEqual({ message: tooMany(6), code: 'TOO_MANY_STEPS' });
    const nested = await post({ name: 'six grouped', steps: [group('g', [group('h', steps(4))])] });
    expect(nested.json()).toEqual({ message: tooMany(6), code: 'TOO_MANY_STEPS' });
    const json = await t.api({
      method: 'POST',
      url: '/v1/tests',
      payload: { testData: { name: 'six json', steps: steps(6) } },
    });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toEqual({ message: tooMany(6), code: 'TOO_MANY_STEPS' });
    for (const name of ['six flat', 'six grouped', 'six json']) expect(await testsNamed(name)).toEqual([]);
  });

  it('measures the stored bytes: exactly MAX_STEP_TREE_BYTES accepted, one byte more refused', async () => {
    const fits = [step(1), padded(maxBytes - 27)];
    const created = await post({ name: 'bytes fit', steps: fits });
    expect(created.statusCode).toBe(200);
    const over = await post({ name: 'bytes over', steps: [step(1), padded(maxBytes - 26)] });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({ message: tooLarge(maxBytes + 1), code: 'STEPS_TOO_LARGE' });
    expect(await testsNamed('bytes over')).toEqual([]);
    // The tree read back stays within the bytes plus a bounded overhead per step (ids, flags).
    const read = await t.api({ method: 'GET', url: `/v1/tests/${created.json().data.id}/steps` });
    expect(read.body.length).toBeLessThan(maxBytes + 2 * 300);
  });

  it('PUT /v1/tests/:id replaces steps up to the limit and refuses past it, leaving the test as it was', async () => {
    const { id } = await createTest(t, { name: 'replaced', steps: steps(1) });
    expect((await updateTest(t, id, { steps: steps(5) })).statusCode).toBe(200);
    const [before] = await testsNamed('replaced');
    const refused = await updateTest(t, id, { name: 'renamed', steps: [group('g', steps(5))] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ message: tooMany(6), code: 'TOO_MANY_STEPS' });
    const bytes = await updateTest(t, id, { steps: [padded(maxBytes + 1)] });
    expect(bytes.json()).toEqual({ message: tooLarge(maxBytes + 1), code: 'STEPS_TOO_LARGE' });
    expect((await stepsOf(id)).map((item) => item.name)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(await testsNamed('replaced')).toEqual([before]);
  });

  it('counts a shared group where a test uses it, with its children', async () => {
    const owner = await createTest(t, {
      name: 'shared owner',
      steps: [group('Sign in', steps(3), { shared: true })],
    });
    const [shared] = await stepsOf(owner.id);
    if (!shared) throw new Error('no shared group');
    const ref = { shared: true, stepId: shared.stepId };
    expect((await post({ name: 'uses four plus one', steps: [ref, step(9)] })).statusCode).toBe(200);
    const refused = await post({ name: 'uses four plus two', steps: [ref, step(8), step(9)] });
    expect(refused.json()).toEqual({ message: tooMany(6), code: 'TOO_MANY_STEPS' });
    expect(await testsNamed('uses four plus two')).toEqual([]);
  });

  it('PUT /v1/steps/:id/children on a plain group: to the limit, then refused with the children kept', async () => {
    const { id } = await createTest(t, { name: 'plain group', steps: [group('g', steps(2)), step(7)] });
    const [plain] = await stepsOf(id);
    if (!plain) throw new Error('no group');
    const kept = plain.children.map((child) => ({ ...child, revisionStepId: child.id }));
    expect((await putChildren(plain.id, [...kept, step(3)])).statusCode).toBe(200);
    const refused = await putChildren(plain.id, [...kept, step(3), step(4)]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ message: tooMany(6, 'test "plain group"'), code: 'TOO_MANY_STEPS' });
    const bytes = await putChildren(plain.id, [padded(maxBytes)]);
    expect(bytes.json().message).toMatch(
      /^A test's steps take at most 2048 bytes \(MAX_STEP_TREE_BYTES\); test "plain group" would take \d+$/,
    );
    expect((await stepsOf(id))[0]?.children.map((child) => child.name)).toEqual(['s0', 's1', 's3']);
  });

  it('PUT /v1/steps/:id/children on a shared group refuses growing any test using it past a limit', async () => {
    const a = await createTest(t, {
      name: 'group user A',
      steps: [group('Shared', steps(2), { shared: true })],
    });
    const [shared] = await stepsOf(a.id);
    if (!shared) throw new Error('no shared group');
    const b = await createTest(t, {
      name: 'group user B',
      steps: [{ shared: true, stepId: shared.stepId }, step(5), step(6)],
    });
    expect(count(await stepsOf(b.id))).toBe(5);
    const kept = shared.children.map((child) => ({ ...child, revisionStepId: child.id }));
    const refused = await putChildren(shared.id, [...kept, step(3)]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ message: tooMany(6, 'test "group user B"'), code: 'TOO_MANY_STEPS' });
    expect(count(await stepsOf(a.id))).toBe(3);
    expect(count(await stepsOf(b.id))).toBe(5);
    // Same size, other children: allowed.
    expect((await putChildren(shared.id, [step(3), step(4)])).statusCode).toBe(200);
    expect((await stepsOf(b.id))[0]?.children.map((child) => child.name)).toEqual(['s3', 's4']);
  });

  it('counts shared groups as they expand: a group linking itself twice is refused, not stored', async () => {
    const { id } = await createTest(t, {
      name: 'self linking',
      steps: [group('Loop', steps(1), { shared: true })],
    });
    const [loop] = await stepsOf(id);
    if (!loop) throw new Error('no shared group');
    const self = { shared: true, stepId: loop.stepId };
    // Shown 21 levels deep (step-trees.ts), twice per level: 2^22 - 2 children below the group.
    const refused = await putChildren(loop.id, [self, self]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      message: tooMany(2 ** 22 - 1, 'test "self linking"'),
      code: 'TOO_MANY_STEPS',
    });
    expect(count(await stepsOf(id))).toBe(2);
  });

  it('PUT /v1/steps/:id/update refuses a step grown past the bytes of a test showing it, directly or in a shared group', async () => {
    const { id } = await createTest(t, { name: 'edited step', steps: [step(1), step(2)] });
    const [first] = await stepsOf(id);
    if (!first) throw new Error('no step');
    // 27 + 27 bytes; metadata of exactly 2048 - 54 bytes brings the test to the limit.
    const pad = (bytes: number) => ({ p: 'x'.repeat(bytes - '{"p":""}'.length) });
    expect((await updateStep(first.stepId, { metadata: pad(maxBytes - 54) })).statusCode).toBe(200);
    const refused = await updateStep(first.stepId, { metadata: pad(maxBytes - 53) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      message: tooLarge(maxBytes + 1, 'test "edited step"'),
      code: 'STEPS_TOO_LARGE',
    });
    expect(JSON.stringify((await stepsOf(id))[0]?.metadata).length).toBe(maxBytes - 54);

    const owner = await createTest(t, {
      name: 'group child owner',
      steps: [group('Shared2', steps(1), { shared: true })],
    });
    const [shared] = await stepsOf(owner.id);
    const child = shared?.children[0];
    if (!shared || !child) throw new Error('no shared child');
    const user = await createTest(t, {
      name: 'group child user',
      // The group (name 7 + action 16) and its child s0 (27) take 50 bytes here; renamed to 102
      // characters, the child takes 100 more: 150 + the padding = one byte past the limit.
      steps: [{ shared: true, stepId: shared.stepId }, padded(maxBytes + 1 - 150)],
    });
    const grown = await updateStep(child.stepId, { name: 'x'.repeat(102) });
    expect(grown.statusCode).toBe(400);
    expect(grown.json()).toEqual({
      message: tooLarge(maxBytes + 1, 'test "group child user"'),
      code: 'STEPS_TOO_LARGE',
    });
    expect((await stepsOf(user.id))[0]?.children[0]?.name).toBe('s0');
  });

  it('leaves out of an import each test and shared step past a limit, naming them in errors', async () => {
    const manifest = JSON.stringify({ format: 'stepdeck-tests', formatVersion: 1, tests: [] });
    const doc = (id: string, name: string, docSteps: unknown[]) =>
      JSON.stringify({ id, parentId: null, name, steps: docSteps, tags: [], files: [] });
    const zip = await zipFiles(
      new Map([
        ['manifest.json', manifest],
        [
          'shared-steps.json',
          JSON.stringify([
            {
              id: 'big',
              name: 'Big shared',
              action: { name: 'group' },
              condition: null,
              metadata: null,
              group: true,
              children: steps(5),
            },
            {
              id: 'small',
              name: 'Small shared',
              action: { name: 'group' },
              condition: null,
              metadata: null,
              group: true,
              children: steps(2),
            },
          ]),
        ],
        [
          'tests/00001-fits.json',
          doc('t1', 'import fits', [{ shared: true, stepId: 'small' }, step(7), step(8)]),
        ],
        ['tests/00002-over.json', doc('t2', 'import over', steps(6))],
        [
          'tests/00003-shared-over.json',
          doc('t3', 'import shared over', [{ shared: true, stepId: 'small' }, ...steps(3)]),
        ],
        ['tests/00004-bytes.json', doc('t4', 'import bytes', [padded(maxBytes + 1)])],
      ]),
    );
    const form = await multipart({}, [{ field: 'file', filename: 'limits.zip', content: zip }]);
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: form.payload,
      headers: form.headers,
    });
    expect(response.statusCode).toBe(200);
    const { imported, errors } = response.json().data;
    expect(imported).toMatchObject({ tests: 1, sharedSteps: 1 });
    expect(errors).toEqual([
      { file: 'shared-steps.json', error: tooMany(6, 'shared step "Big shared"') },
      { file: 'tests/00002-over.json', error: tooMany(6, 'test "import over"') },
      { file: 'tests/00003-shared-over.json', error: tooMany(6, 'test "import shared over"') },
      { file: 'tests/00004-bytes.json', error: tooLarge(maxBytes + 1, 'test "import bytes"') },
    ]);
    const [fits] = await testsNamed('import fits');
    if (!fits) throw new Error('not imported');
    expect(count(await stepsOf(fits.id))).toBe(5);
    for (const name of ['import over', 'import shared over', 'import bytes'])
      expect(await testsNamed(name)).toEqual([]);
  });

  it('links the children of an imported shared group to the archive’s steps, never to an id of another project', async () => {
    const cookie = await t.consoleCookie();
    const project = (
      await consoleCall(t.app, cookie, {
        method: 'POST',
        url: '/console/v1/projects',
        payload: { name: `Other ${database}` },
      })
    ).json().data as { id: string };
    const other = await createTest(
      t,
      {
        name: 'other project test',
        steps: [{ name: 'Other secret', action: { name: 'goto', url: '/secret' } }],
      },
      { headers: { 'x-project-id': project.id } },
    );
    const victim = (
      await t.api({
        method: 'GET',
        url: `/v1/tests/${other.id}/steps`,
        headers: { 'x-project-id': project.id },
      })
    ).json().data.steps[0] as StepItem;
    const zip = await zipFiles(
      new Map([
        ['manifest.json', JSON.stringify({ format: 'stepdeck-tests', formatVersion: 1, tests: [] })],
        [
          'shared-steps.json',
          JSON.stringify([
            {
              id: victim.stepId,
              name: 'Mine',
              action: { name: 'goto', url: '/mine' },
              condition: null,
              metadata: null,
            },
            {
              id: 'g',
              name: 'Wrapper',
              action: { name: 'group' },
              condition: null,
              metadata: null,
              group: true,
              children: [{ shared: true, stepId: victim.stepId }],
            },
          ]),
        ],
        [
          'tests/00001-wrapper.json',
          JSON.stringify({
            id: 't',
            parentId: null,
            name: 'wrapper user',
            steps: [{ shared: true, stepId: 'g' }],
          }),
        ],
      ]),
    );
    const form = await multipart({}, [{ field: 'file', filename: 'wrap.zip', content: zip }]);
    const response = await t.api({
      method: 'POST',
      url: '/v1/tests/import',
      payload: form.payload,
      headers: form.headers,
    });
    expect(response.json().data.errors).toEqual([]);
    const [imported] = await testsNamed('wrapper user');
    if (!imported) throw new Error('not imported');
    const [wrapper] = await stepsOf(imported.id);
    expect(wrapper?.children.map((child) => child.name)).toEqual(['Mine']);
    expect(wrapper?.children[0]?.stepId).not.toBe(victim.stepId);
  });

  it('refuses an export whose tests together pass the export caps on steps and bytes', async () => {
    const a = await createTest(t, { name: 'export a', steps: steps(3) });
    const b = await createTest(t, { name: 'export b', steps: steps(2) });
    const exportOf = () =>
      t.api({ method: 'POST', url: '/v1/tests/export', payload: { testIds: [a.id, b.id] } });
    exportLimits.maxSteps = 5;
    expect((await exportOf()).statusCode).toBe(200);
    exportLimits.maxSteps = 4;
    const refused = await exportOf();
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      message: 'Export is limited to 4 steps; the 2 selected tests have 5: export fewer at a time',
      code: 'EXPORT_TOO_MANY_STEPS',
    });
    exportLimits.maxSteps = 250_000;
    exportLimits.maxStepBytes = 5 * 27 - 1;
    expect((await exportOf()).json()).toEqual({
      message: `Export is limited to ${5 * 27 - 1} bytes of steps; the 2 selected tests' steps take ${5 * 27}: export fewer at a time`,
      code: 'EXPORT_TOO_MANY_BYTES',
    });
  });
});
