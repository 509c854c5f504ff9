import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeSchedulesReferencing } from '../../../src/modules/schedules/references.ts';
import {
  consoleCall,
  createApiKey,
  createTestApp,
  databaseKinds,
  login,
  type TestApp,
} from '../../helper.ts';
import { manualClock } from './fixtures.ts';

describe.each(databaseKinds)('schedules API on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  let tagId: string;
  // Moved by hand (sessions last 12 h, so only small steps).
  const clock = manualClock('2030-03-04T10:15:30.000Z');
  const call = (inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const withKey = (key: string, inject: InjectOptions) =>
    t.app.inject({ ...inject, headers: { ...inject.headers, 'x-api-key': key } });

  async function insertTest(options: { parentTestId?: string; directory?: boolean } = {}) {
    const id = randomUUID();
    const now = clock.now().toISOString();
    await t.ctx.db
      .insertInto('tests')
      .values({
        id,
        projectId: t.bootstrap.projectId,
        organizationId: t.bootstrap.organizationId,
        parentTestId: options.parentTestId ?? null,
        directory: options.directory ? 1 : 0,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    return id;
  }

  async function createSchedule(body: Record<string, unknown>) {
    const response = await call({
      method: 'POST',
      url: '/console/v1/schedules',
      payload: { name: 'nightly', projectId: t.bootstrap.projectId, cron: '0 2 * * *', ...body },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as Record<string, unknown> & { id: string };
  }

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
    cookie = await t.consoleCookie();
    const tag = await call({ method: 'POST', url: '/console/v1/tags', payload: { name: 'smoke' } });
    tagId = tag.json().data.id;
  });
  afterAll(async () => t?.close());

  describe('console management', () => {
    it('creates a schedule with defaults and computes nextRunAt in its time zone', async () => {
      const created = await createSchedule({ name: 'Nightly smoke', tagId, timezone: 'Europe/Paris' });
      expect(created).toMatchObject({
        name: 'Nightly smoke',
        organizationId: t.bootstrap.organizationId,
        projectId: t.bootstrap.projectId,
        branchId: t.bootstrap.branchId,
        tagId,
        testIds: null,
        cron: '0 2 * * *',
        timezone: 'Europe/Paris',
        config: null,
        enabled: true,
        scheduleType: 'cron',
        // 02:00 in Paris (UTC+1 in March before DST) on the next day.
        nextRunAt: '2030-03-05T01:00:00.000Z',
        lastRunAt: null,
        lastRunId: null,
        lastSkippedAt: null,
        skippedCount: 0,
        createdAt: '2030-03-04T10:15:30.000Z',
      });
      const listed = await call({ method: 'GET', url: '/console/v1/schedules' });
      expect(listed.json().data.map((s: { id: string }) => s.id)).toContain(created.id);
    });

    it('defaults the time zone to UTC and accepts second-level cron and a config override', async () => {
      const testId = await insertTest();
      const created = await createSchedule({
        testIds: [testId],
        cron: '*/15 * * * * *',
        config: { retries: 2, use: { browserName: 'chromium' } },
        enabled: false,
      });
      expect(created).toMatchObject({
        testIds: [testId],
        tagId: null,
        timezone: 'UTC',
        config: { retries: 2, use: { browserName: 'chromium' } },
        enabled: false,
        nextRunAt: null,
      });
    });

    it('rejects invalid input with a 4xx naming the problem', async () => {
      const base = { name: 'bad', projectId: t.bootstrap.projectId, cron: '0 2 * * *', tagId };
      const cases: Array<[Record<string, unknown>, number, RegExp]> = [
        [{ ...base, cron: 'every day' }, 400, /cron/i],
        [{ ...base, cron: '61 * * * *' }, 400, /cron.*minute/i],
        [{ ...base, timezone: 'Mars/Olympus' }, 400, /timezone: Mars\/Olympus/],
        [{ ...base, testIds: [randomUUID()] }, 400, /exactly one of testIds or tagId/i],
        [{ name: 'x', projectId: t.bootstrap.projectId, cron: '0 2 * * *' }, 400, /exactly one/i],
        [{ ...base, tagId: undefined, testIds: [] }, 400, /testIds/],
        [{ ...base, tagId: undefined, testIds: [randomUUID()] }, 404, /Test not found/],
        [{ ...base, tagId: randomUUID() }, 404, /Tag not found/],
        [{ ...base, projectId: randomUUID() }, 404, /Project not found/],
        [{ ...base, branchId: randomUUID() }, 404, /Branch not found/],
        [{ ...base, config: { retries: 99 } }, 400, /retries/],
        [{ ...base, name: '' }, 400, /name/],
        [{ ...base, enabled: 'yes' }, 400, /enabled/],
      ];
      for (const [payload, status, message] of cases) {
        const response = await call({ method: 'POST', url: '/console/v1/schedules', payload });
        expect(response.statusCode, JSON.stringify(payload)).toBe(status);
        expect(response.json().message, JSON.stringify(payload)).toMatch(message);
      }
    });

    it('updates fields, recomputing nextRunAt when the timing changes', async () => {
      const created = await createSchedule({ tagId });
      const testId = await insertTest();
      const updated = await call({
        method: 'PUT',
        url: `/console/v1/schedules/${created.id}`,
        payload: { name: 'hourly', cron: '0 * * * *', testIds: [testId] },
      });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json().data).toMatchObject({
        name: 'hourly',
        cron: '0 * * * *',
        testIds: [testId],
        tagId: null,
        nextRunAt: '2030-03-04T11:00:00.000Z',
      });
      const paused = await call({
        method: 'PUT',
        url: `/console/v1/schedules/${created.id}`,
        payload: { enabled: false },
      });
      expect(paused.json().data).toMatchObject({ enabled: false, nextRunAt: null });
      const badZone = await call({
        method: 'PUT',
        url: `/console/v1/schedules/${created.id}`,
        payload: { timezone: 'Nowhere/City' },
      });
      expect(badZone.statusCode).toBe(400);
      expect(badZone.json().message).toMatch(/Invalid timezone: Nowhere\/City/);
      const both = await call({
        method: 'PUT',
        url: `/console/v1/schedules/${created.id}`,
        payload: { tagId, testIds: [testId] },
      });
      expect(both.statusCode).toBe(400);
      const stored = await t.api({ method: 'GET', url: `/v1/schedules/${created.id}` });
      expect(stored.json().data).toMatchObject({ name: 'hourly', enabled: false, timezone: 'UTC' });
      const missing = await call({
        method: 'PUT',
        url: `/console/v1/schedules/${randomUUID()}`,
        payload: {},
      });
      expect(missing.statusCode).toBe(404);
    });

    it('deletes a schedule', async () => {
      const created = await createSchedule({ tagId });
      const deleted = await call({ method: 'DELETE', url: `/console/v1/schedules/${created.id}` });
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual({ data: null });
      expect((await t.api({ method: 'GET', url: `/v1/schedules/${created.id}` })).statusCode).toBe(404);
      const again = await call({ method: 'DELETE', url: `/console/v1/schedules/${created.id}` });
      expect(again.statusCode).toBe(404);
    });

    it('lets members read but not change schedules, and refuses API keys', async () => {
      const created = await call({
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: `member-${database}@example.com`, password: 'member-password', role: 'member' },
      });
      expect(created.statusCode).toBe(201);
      const memberCookie = await login(t.app, `member-${database}@example.com`, 'member-password');
      const list = await consoleCall(t.app, memberCookie, { method: 'GET', url: '/console/v1/schedules' });
      expect(list.statusCode).toBe(200);
      const create = await consoleCall(t.app, memberCookie, {
        method: 'POST',
        url: '/console/v1/schedules',
        payload: { name: 'm', projectId: t.bootstrap.projectId, cron: '0 2 * * *', tagId },
      });
      expect(create.statusCode).toBe(403);
      const withApiKey = await t.api({
        method: 'POST',
        url: '/console/v1/schedules',
        payload: { name: 'k', projectId: t.bootstrap.projectId, cron: '0 2 * * *', tagId },
      });
      expect(withApiKey.statusCode).toBe(401);
    });
  });

  describe('API key routes', () => {
    it('lists and reads schedules of the organization without x-project-id', async () => {
      const created = await createSchedule({ name: 'listed', tagId });
      const key = await createApiKey(t, ['schedules:read']);
      const list = await withKey(key, { method: 'GET', url: '/v1/schedules' });
      expect(list.statusCode).toBe(200);
      expect(list.json().data.map((s: { id: string }) => s.id)).toContain(created.id);
      const filtered = await withKey(key, {
        method: 'GET',
        url: `/v1/schedules?projectId=${randomUUID()}`,
      });
      expect(filtered.json().data).toEqual([]);
      const one = await withKey(key, { method: 'GET', url: `/v1/schedules/${created.id}` });
      expect(one.statusCode).toBe(200);
      expect(one.json().data).toMatchObject({ id: created.id, name: 'listed', scheduleType: 'cron' });
      const missing = await withKey(key, { method: 'GET', url: `/v1/schedules/${randomUUID()}` });
      expect(missing.statusCode).toBe(404);
      const badId = await withKey(key, { method: 'GET', url: '/v1/schedules/not-a-uuid' });
      expect(badId.statusCode).toBe(400);
    });

    it('hides schedules of other organizations', async () => {
      const created = await createSchedule({ name: 'ours', tagId });
      const org = await call({
        method: 'POST',
        url: '/console/v1/organizations',
        payload: {
          name: 'Other',
          ownerEmail: `other-${database}@example.com`,
          ownerPassword: 'other-password',
        },
      });
      expect(org.statusCode, org.body).toBe(201);
      const otherCookie = await login(t.app, `other-${database}@example.com`, 'other-password');
      const keyResponse = await consoleCall(t.app, otherCookie, {
        method: 'POST',
        url: '/console/v1/api-keys',
        payload: { name: 'other', scopes: ['schedules:read', 'schedules:run', 'schedules:pause'] },
      });
      const otherKey = keyResponse.json().data.key as string;
      expect((await withKey(otherKey, { method: 'GET', url: '/v1/schedules' })).json().data).toEqual([]);
      for (const [method, url] of [
        ['GET', `/v1/schedules/${created.id}`],
        ['POST', `/v1/schedules/${created.id}/disable`],
        ['POST', `/v1/schedules/${created.id}/trigger`],
      ] as const) {
        const response = await withKey(otherKey, { method, url });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json().message).toBe('Schedule not found');
      }
      const othersConsole = await consoleCall(t.app, otherCookie, {
        method: 'DELETE',
        url: `/console/v1/schedules/${created.id}`,
      });
      expect(othersConsole.statusCode).toBe(404);
    });

    it('disables and enables with their own scopes; enabling recomputes nextRunAt', async () => {
      const created = await createSchedule({ name: 'pausable', tagId, cron: '*/10 * * * *' });
      expect(created.nextRunAt).toBe('2030-03-04T10:20:00.000Z');
      const readOnly = await createApiKey(t, ['schedules:read']);
      const pauseOnly = await createApiKey(t, ['schedules:pause']);
      const pauser = await createApiKey(t, ['schedules:read', 'schedules:pause']);
      const resumer = await createApiKey(t, ['schedules:read', 'schedules:resume']);

      for (const key of [readOnly, pauseOnly, resumer]) {
        const response = await withKey(key, { method: 'POST', url: `/v1/schedules/${created.id}/disable` });
        expect(response.statusCode).toBe(403);
      }
      const disabled = await withKey(pauser, { method: 'POST', url: `/v1/schedules/${created.id}/disable` });
      expect(disabled.statusCode).toBe(200);
      expect(disabled.json().data).toMatchObject({ id: created.id, enabled: false, nextRunAt: null });
      // The same record GET answers, every field included (presetId was missing).
      const read = (key: string) => withKey(key, { method: 'GET', url: `/v1/schedules/${created.id}` });
      expect(disabled.json().data).toEqual((await read(pauser)).json().data);

      clock.advance(25 * 60 * 1000); // 10:40:30: the 10:20 and 10:30 ticks passed while paused
      for (const key of [readOnly, pauser]) {
        const response = await withKey(key, { method: 'POST', url: `/v1/schedules/${created.id}/enable` });
        expect(response.statusCode).toBe(403);
      }
      const enabled = await withKey(resumer, { method: 'POST', url: `/v1/schedules/${created.id}/enable` });
      expect(enabled.statusCode).toBe(200);
      expect(enabled.json().data).toMatchObject({ enabled: true, nextRunAt: '2030-03-04T10:50:00.000Z' });
      expect(enabled.json().data).toEqual((await read(resumer)).json().data);
    });

    it('requires schedules:run to trigger and 404s an unknown schedule', async () => {
      const created = await createSchedule({ name: 'triggerable', tagId });
      const readOnly = await createApiKey(t, ['schedules:read']);
      const runOnly = await createApiKey(t, ['schedules:run']);
      for (const key of [readOnly, runOnly]) {
        const response = await withKey(key, { method: 'POST', url: `/v1/schedules/${created.id}/trigger` });
        expect(response.statusCode).toBe(403);
      }
      const runner = await createApiKey(t, ['schedules:read', 'schedules:run']);
      const missing = await withKey(runner, { method: 'POST', url: `/v1/schedules/${randomUUID()}/trigger` });
      expect(missing.statusCode).toBe(404);
      expect((await withKey(runOnly, { method: 'GET', url: '/v1/schedules' })).statusCode).toBe(403);
    });

    it('answers LICENSE_REQUIRED to changing calls without a subscription, reads still work', async () => {
      const created = await createSchedule({ name: 'licensed', tagId });
      const key = await createApiKey(t, [
        'schedules:read',
        'schedules:run',
        'schedules:pause',
        'schedules:resume',
      ]);
      const off = await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: false } });
      expect(off.statusCode).toBe(200);
      try {
        for (const action of ['trigger', 'disable', 'enable']) {
          const response = await withKey(key, {
            method: 'POST',
            url: `/v1/schedules/${created.id}/${action}`,
          });
          expect(response.statusCode, action).toBe(403);
          expect(response.json().message).toBe('LICENSE_REQUIRED');
        }
        const read = await withKey(key, { method: 'GET', url: `/v1/schedules/${created.id}` });
        expect(read.statusCode).toBe(200);
        expect(read.json().data.enabled).toBe(true);
      } finally {
        await call({ method: 'PUT', url: '/console/v1/subscription', payload: { active: true } });
      }
    });
  });

  describe('references from tests', () => {
    it('finds enabled schedules naming a test, a directory above it, or a tag it carries', async () => {
      const directory = await insertTest({ directory: true });
      const leaf = await insertTest({ parentTestId: directory });
      const tagged = await insertTest();
      const otherTag = await call({
        method: 'POST',
        url: '/console/v1/tags',
        payload: { name: `refs-${database}` },
      });
      const refTagId = otherTag.json().data.id as string;
      await t.ctx.db.insertInto('testTags').values({ testId: tagged, tagId: refTagId }).execute();

      const direct = await createSchedule({ name: 'direct', testIds: [leaf] });
      const viaDirectory = await createSchedule({ name: 'via directory', testIds: [directory] });
      const viaTag = await createSchedule({ name: 'via tag', tagId: refTagId });
      await createSchedule({ name: 'disabled', testIds: [leaf], enabled: false });

      const projectId = t.bootstrap.projectId;
      const ids = async (testIds: string[]) =>
        (await activeSchedulesReferencing(t.ctx.db, projectId, testIds)).map((s) => s.id).sort();
      expect(await ids([leaf])).toEqual([direct.id, viaDirectory.id].sort());
      expect(await ids([directory])).toEqual([viaDirectory.id]);
      expect(await ids([tagged])).toEqual([viaTag.id]);
      expect(await ids([await insertTest()])).toEqual([]);
      expect(await activeSchedulesReferencing(t.ctx.db, randomUUID(), [leaf])).toEqual([]);

      await call({ method: 'DELETE', url: `/console/v1/schedules/${direct.id}` });
      await call({ method: 'DELETE', url: `/console/v1/schedules/${viaDirectory.id}` });
      expect(await ids([leaf])).toEqual([]);
    });
  });
});
