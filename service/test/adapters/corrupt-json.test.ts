import { runConfig } from '@stepdeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CorruptDataError, readJson } from '../../src/adapters/db/index.ts';
import { doneBatches } from '../../src/modules/runs/batches-repository.ts';
import { loadRunProject } from '../../src/modules/runs/prepare.ts';
import { findRun } from '../../src/modules/runs/repository.ts';
import { consoleCall, createTest, createTestApp, databaseKinds, type TestApp } from '../helper.ts';
import { createSchedule } from '../modules/schedules/fixtures.ts';

/**
 * JSON columns are read back through their contract schemas: a row the service
 * cannot have written stops the request with a 500 naming the table, row and column, never a
 * wrong type flowing on, and never the stored value in the message.
 */
describe('readJson', () => {
  it('returns the parsed value, or the fallback for NULL', () => {
    expect(readJson(runConfig, '{"retries":2}', {}, 'x')).toEqual({ retries: 2 });
    expect(readJson(runConfig, null, {}, 'x')).toEqual({});
  });

  it('names the place and the problem, without the value', () => {
    expect(() => readJson(runConfig, '{"retries":"secret-ish"}', {}, 'testRevisions r1/config')).toThrow(
      /^Corrupt stored data in testRevisions r1\/config: .*retries/,
    );
    expect(() => readJson(runConfig, '{"retries":"secret-ish"}', {}, 'here')).not.toThrow(/secret-ish/);
    expect(() => readJson(runConfig, '{not json', {}, 'steps s1/action')).toThrow(
      'Corrupt stored data in steps s1/action: not valid JSON',
    );
    expect(() => readJson(runConfig, '[]', {}, 'here')).toThrow(CorruptDataError);
  });
});

describe('readJson reading the same text again', () => {
  it('skips the schema only for a text the schema accepted unchanged, and still returns a fresh value', () => {
    const counted = z.object({ retries: z.number() }).check((ctx) => {
      checks.push(ctx.value);
    });
    const checks: unknown[] = [];
    const first = readJson(counted, '{"retries":1}', { retries: 0 }, 'x');
    const second = readJson(counted.nullable(), '{"retries":1}', null, 'x');
    expect(first).toEqual({ retries: 1 });
    expect(second).toEqual({ retries: 1 });
    expect(second).not.toBe(first);
    // Validated once: the wrapper built per call (nullable) shares what its inner schema accepted.
    expect(checks).toHaveLength(1);
    // A different text, even of the same meaning, is checked again; so is a corrupt one.
    readJson(counted, '{ "retries": 1 }', { retries: 0 }, 'x');
    expect(checks).toHaveLength(2);
    expect(() => readJson(counted, '{"retries":"1"}', { retries: 0 }, 'x')).toThrow(CorruptDataError);
    // "null" is checked by the full schema every time: valid for the nullable one, not the inner.
    expect(readJson(counted.nullable(), 'null', null, 'x')).toBeNull();
    expect(() => readJson(counted, 'null', { retries: 0 }, 'x')).toThrow(CorruptDataError);
  });

  it('never skips a schema whose output differs from the text (defaults, transforms, stripped keys)', () => {
    const withDefault = z.object({ a: z.number().default(5) });
    expect(readJson(withDefault, '{}', { a: 0 }, 'x')).toEqual({ a: 5 });
    expect(readJson(withDefault, '{}', { a: 0 }, 'x')).toEqual({ a: 5 });
    const dated = z.object({ at: z.coerce.date() });
    const text = '{"at":"2026-11-24T00:00:00.000Z"}';
    expect(readJson(dated, text, { at: new Date(0) }, 'x').at).toBeInstanceOf(Date);
    expect(readJson(dated, text, { at: new Date(0) }, 'x').at).toBeInstanceOf(Date);
    const stripping = z.object({ keep: z.number() });
    expect(readJson(stripping, '{"keep":1,"drop":2}', { keep: 0 }, 'x')).toEqual({ keep: 1 });
    expect(readJson(stripping, '{"keep":1,"drop":2}', { keep: 0 }, 'x')).toEqual({ keep: 1 });
  });
});

describe.each(databaseKinds)('a corrupt JSON column on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ database });
  });
  afterAll(async () => t?.close());

  it('answers 500 naming the test revision and column, and other tests still read', async () => {
    const broken = await createTest(t, { name: 'broken config' });
    const fine = await createTest(t, { name: 'fine' });
    const revision = await t.ctx.db
      .selectFrom('testRevisions')
      .select('id')
      .where('testId', '=', broken.id)
      .where('kind', '=', 'working')
      .executeTakeFirstOrThrow();
    await t.ctx.db
      .updateTable('testRevisions')
      .set({ config: '{"use":"not an object"}' })
      .where('id', '=', revision.id)
      .execute();

    const response = await t.api({ url: `/v1/tests/${broken.id}` });
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toMatch(
      new RegExp(`^Corrupt stored data in testRevisions ${revision.id}/config: .*use`),
    );
    expect(response.body).not.toContain('not an object');
    expect((await t.api({ url: `/v1/tests/${fine.id}` })).statusCode).toBe(200);
  });

  it('answers 500 naming a step whose action is not JSON', async () => {
    const test = await createTest(t, {
      name: 'broken step',
      steps: [{ name: 'open', action: { name: 'goto', url: 'https://example.com' } }],
    });
    const step = await t.ctx.db
      .selectFrom('revisionSteps as rs')
      .innerJoin('testRevisions as r', 'r.id', 'rs.revisionId')
      .select('rs.stepId')
      .where('r.testId', '=', test.id)
      .executeTakeFirstOrThrow();
    await t.ctx.db.updateTable('steps').set({ action: '{"name":' }).where('id', '=', step.stepId).execute();

    const response = await t.api({ url: `/v1/tests/${test.id}/steps` });
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toBe(
      `Corrupt stored data in steps ${step.stepId}/action: not valid JSON`,
    );
  });

  it('answers 500 naming a schedule whose testIds is not a list of IDs', async () => {
    const test = await createTest(t, { name: 'scheduled', status: 'active' });
    const schedule = await createSchedule(t, { testIds: [test.id] });
    await t.ctx.db
      .updateTable('schedules')
      .set({ testIds: '{"0":"x"}' })
      .where('id', '=', schedule.id)
      .execute();

    const response = await t.api({ url: `/v1/schedules/${schedule.id}` });
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toMatch(
      new RegExp(`^Corrupt stored data in schedules ${schedule.id}/testIds: `),
    );
  });

  it('refuses to trigger a schedule whose config is not an object, naming it, and starts no run', async () => {
    const test = await createTest(t, { name: 'triggered', status: 'active' });
    const schedule = await createSchedule(t, { testIds: [test.id] });
    await t.ctx.db.updateTable('schedules').set({ config: '[1]' }).where('id', '=', schedule.id).execute();
    const runCount = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('runs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await runCount();

    const response = await t.api({ method: 'POST', url: `/v1/schedules/${schedule.id}/trigger` });
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toMatch(
      new RegExp(`^Corrupt stored data in schedules ${schedule.id}/config: `),
    );
    expect(await runCount()).toBe(before);
  });

  /** A pending run of one active test (no runner: the app runs no background work). */
  async function pendingRun(name: string): Promise<string> {
    const test = await createTest(t, { name, status: 'active' });
    const started = await t.api({ method: 'POST', url: `/v1/tests/${test.id}/remote-run` });
    expect(started.statusCode, started.body).toBe(200);
    return started.json().data.runId as string;
  }

  /** A batch row of the run as a runner leaves it: done, in a slot, with its test ids. */
  async function batchRow(runId: string, testIds: string, result: string | null) {
    const now = new Date().toISOString();
    await t.ctx.db
      .insertInto('runBatches')
      .values({
        runId,
        position: 0,
        kind: 'tests',
        testIds,
        expectedMs: 1000,
        status: 'done',
        attempts: 1,
        runnerId: 'r1',
        slot: 'r1#0',
        heartbeatAt: Date.now(),
        startedAt: now,
        completedAt: now,
        result,
      })
      .execute();
  }

  it('runs: answers 500 naming the batch whose testIds is not a list of IDs', async () => {
    const runId = await pendingRun('batched');
    await batchRow(runId, '{"0":"x"}', null);

    const response = await t.api({ url: `/v1/test-runs/${runId}` });
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toMatch(
      new RegExp(`^Corrupt stored data in runBatches ${runId}:0/testIds: `),
    );
  });

  it('runs (merge, background): a batch result of the wrong shape stops with the batch named', async () => {
    const runId = await pendingRun('merged');
    await batchRow(runId, '[]', '{"status":"passed","runnerError":null,"durationMs":"fast","tests":[]}');

    await expect(doneBatches(t.ctx.db, runId)).rejects.toThrow(
      new RegExp(`^Corrupt stored data in runBatches ${runId}:0/result: .*durationMs`),
    );
  });

  it('runner prepare (background): a run config of the wrong shape stops with the run named', async () => {
    const runId = await pendingRun('prepared');
    await t.ctx.db
      .updateTable('runs')
      .set({ config: '{"retries":"many"}' })
      .where('id', '=', runId)
      .execute();
    const run = await findRun(t.ctx.db, runId);
    if (!run) throw new Error('run not found');

    const loading = loadRunProject(t.ctx, run);
    await expect(loading).rejects.toThrow(CorruptDataError);
    await expect(loading).rejects.toThrow(
      new RegExp(`^Corrupt stored data in runs ${runId}/config: .*retries`),
    );
  });

  it('presets: answers 500 naming the preset whose config is not a run config', async () => {
    const cookie = await t.consoleCookie();
    const url = `/console/v1/projects/${t.bootstrap.projectId}/presets`;
    const created = await consoleCall(t.app, cookie, {
      method: 'POST',
      url,
      payload: { name: 'nightly', config: { retries: 1 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const presetId = created.json().data.id as string;
    expect((await consoleCall(t.app, cookie, { method: 'GET', url })).statusCode).toBe(200);
    await t.ctx.db.updateTable('presets').set({ config: '[1,2]' }).where('id', '=', presetId).execute();

    const response = await consoleCall(t.app, cookie, { method: 'GET', url });
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toMatch(
      new RegExp(`^Corrupt stored data in presets ${presetId}/config: `),
    );
  });

  it('inboxes: answers 500 naming the message whose urls are not a list of strings', async () => {
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: {},
    });
    expect(created.statusCode, created.body).toBe(201);
    const inboxId = created.json().data.id as string;
    const recipient = { inboxId, organizationId: t.bootstrap.organizationId };
    const message = { fromAddress: 'a@example.test', subject: 's', bodyText: 't', bodyHtml: '' };
    await t.app.inboxes.service.store({ ...message, sesMessageId: '<ok@x>', urls: ['https://x.example/'] }, [
      recipient,
    ]);
    await t.app.inboxes.service.store({ ...message, sesMessageId: '<bad@x>', urls: [] }, [recipient]);
    const bad = await t.ctx.db
      .selectFrom('emailMessages')
      .select('id')
      .where('sesMessageId', '=', '<bad@x>')
      .executeTakeFirstOrThrow();
    const list = () =>
      t.app.inject({
        method: 'GET',
        url: `/v1/email-inboxes/${inboxId}/messages`,
        headers: { 'x-api-key': t.bootstrap.apiKey },
      });
    expect((await list()).statusCode).toBe(200);
    await t.ctx.db.updateTable('emailMessages').set({ urls: '{"0":1}' }).where('id', '=', bad.id).execute();

    const response = await list();
    expect(response.statusCode).toBe(500);
    expect(response.json().message).toMatch(
      new RegExp(`^Corrupt stored data in emailMessages ${bad.id}/urls: `),
    );
    await expect(t.app.inboxes.service.listMessages(t.bootstrap.organizationId, inboxId)).rejects.toThrow(
      CorruptDataError,
    );
  });
});
