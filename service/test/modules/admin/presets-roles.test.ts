import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTest, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';

describe.each(databaseKinds)('config presets and roles on %s', (database) => {
  let t: TestApp;
  let owner: string;
  let admin: string;
  let member: string;
  let memberId: string;
  let adminId: string;
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const presets = () => `/console/v1/projects/${t.bootstrap.projectId}/presets`;

  beforeAll(async () => {
    t = await createTestApp({ database });
    owner = await t.consoleCookie();
    for (const [email, role] of [
      ['admin@example.test', 'admin'],
      ['member@example.test', 'member'],
    ] as const) {
      const created = await as(owner, {
        method: 'POST',
        url: '/console/v1/users',
        payload: { email, password: 'password-123', role },
      });
      expect(created.statusCode, created.body).toBe(201);
      if (role === 'admin') adminId = created.json().data.id;
      else memberId = created.json().data.id;
    }
    admin = await login(t.app, 'admin@example.test', 'password-123');
    member = await login(t.app, 'member@example.test', 'password-123');
  });
  afterAll(async () => t?.close());

  describe('presets', () => {
    it('creates, lists, edits and deletes a preset validated by the run-config schema', async () => {
      const created = await as(admin, {
        method: 'POST',
        url: presets(),
        payload: { name: 'Firefox nightly', config: { use: { browserName: 'firefox' }, retries: 2 } },
      });
      expect(created.statusCode, created.body).toBe(201);
      const preset = created.json().data;
      expect(preset).toMatchObject({
        name: 'Firefox nightly',
        projectId: t.bootstrap.projectId,
        config: { use: { browserName: 'firefox' }, retries: 2 },
      });

      const list = await as(member, { method: 'GET', url: presets() });
      expect(list.statusCode).toBe(200);
      expect(list.json().data.map((p: { id: string }) => p.id)).toContain(preset.id);

      const edited = await as(admin, {
        method: 'PUT',
        url: `${presets()}/${preset.id}`,
        payload: { name: 'Firefox nightly (3 retries)', config: { retries: 3 } },
      });
      expect(edited.statusCode, edited.body).toBe(200);
      expect(edited.json().data).toMatchObject({
        name: 'Firefox nightly (3 retries)',
        config: { retries: 3 },
      });

      const removed = await as(admin, { method: 'DELETE', url: `${presets()}/${preset.id}` });
      expect(removed.statusCode).toBe(200);
      const after = await as(admin, { method: 'GET', url: presets() });
      expect(after.json().data.map((p: { id: string }) => p.id)).not.toContain(preset.id);
      const again = await as(admin, { method: 'DELETE', url: `${presets()}/${preset.id}` });
      expect(again.statusCode).toBe(404);
      expect(again.json().message).toBe('Preset not found');
    });

    it("refuses a config past the spec's limits with a 400 naming the field, and writes nothing", async () => {
      const response = await as(admin, {
        method: 'POST',
        url: presets(),
        payload: { name: 'too many retries', config: { retries: 11 } },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toMatch(/retries/);
      const list = await as(admin, { method: 'GET', url: presets() });
      expect(list.json().data.map((p: { name: string }) => p.name)).not.toContain('too many retries');
    });

    it('refuses a duplicate name with 409 and an unknown project with 404', async () => {
      const payload = { name: 'Smoke', config: {} };
      expect((await as(admin, { method: 'POST', url: presets(), payload })).statusCode).toBe(201);
      const duplicate = await as(admin, { method: 'POST', url: presets(), payload });
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json().message).toMatch(/Smoke/);
      const elsewhere = await as(admin, {
        method: 'POST',
        url: '/console/v1/projects/00000000-0000-4000-8000-000000000000/presets',
        payload,
      });
      expect(elsewhere.statusCode).toBe(404);
      expect(elsewhere.json().message).toBe('Project not found');
    });

    it('lets members read presets but not change them', async () => {
      const refused = await as(member, {
        method: 'POST',
        url: presets(),
        payload: { name: 'by a member', config: {} },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toMatch(/admin or owner/);
    });

    it('refuses to delete a preset a schedule names, naming the schedule', async () => {
      const preset = (
        await as(admin, { method: 'POST', url: presets(), payload: { name: 'Scheduled', config: {} } })
      ).json().data;
      const tag = await as(owner, { method: 'POST', url: '/console/v1/tags', payload: { name: 'nightly' } });
      const schedule = await as(owner, {
        method: 'POST',
        url: '/console/v1/schedules',
        payload: {
          name: 'Nightly regression',
          projectId: t.bootstrap.projectId,
          tagId: tag.json().data.id,
          cron: '0 3 * * *',
          presetId: preset.id,
        },
      });
      expect(schedule.statusCode, schedule.body).toBe(201);
      const refused = await as(admin, { method: 'DELETE', url: `${presets()}/${preset.id}` });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().message).toBe('Preset is used by schedule "Nightly regression"');
      const still = await as(admin, { method: 'GET', url: presets() });
      expect(still.json().data.map((p: { id: string }) => p.id)).toContain(preset.id);

      // Unnamed from the schedule, the preset may go.
      const cleared = await as(owner, {
        method: 'PUT',
        url: `/console/v1/schedules/${schedule.json().data.id}`,
        payload: { presetId: null },
      });
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(cleared.json().data.presetId).toBeNull();
      expect((await as(admin, { method: 'DELETE', url: `${presets()}/${preset.id}` })).statusCode).toBe(200);
    });

    it("fires a schedule with its preset under the schedule's own config, and the run records the preset", async () => {
      const preset = (
        await as(admin, {
          method: 'POST',
          url: presets(),
          payload: { name: 'Retry twice', config: { retries: 2, use: { actionTimeout: 1234 } } },
        })
      ).json().data;
      const tag = (
        await as(owner, { method: 'POST', url: '/console/v1/tags', payload: { name: 'preset-run' } })
      ).json().data;
      await createTest(t, { name: 'tagged', status: 'active', tags: [tag.id] });
      const schedule = (
        await as(owner, {
          method: 'POST',
          url: '/console/v1/schedules',
          payload: {
            name: 'With preset',
            projectId: t.bootstrap.projectId,
            tagId: tag.id,
            cron: '0 4 * * *',
            presetId: preset.id,
            config: { use: { actionTimeout: 999 } },
          },
        })
      ).json().data;
      expect(schedule.presetId).toBe(preset.id);
      const listed = await as(member, { method: 'GET', url: '/console/v1/schedules' });
      expect(listed.json().data.find((s: { id: string }) => s.id === schedule.id)?.presetId).toBe(preset.id);

      const fired = await t.app.inject({
        method: 'POST',
        url: `/v1/schedules/${schedule.id}/trigger`,
        headers: { 'x-api-key': t.bootstrap.apiKey },
      });
      expect(fired.statusCode, fired.body).toBe(200);
      const run = await t.api({ method: 'GET', url: `/v1/test-runs/${fired.json().data.runId}` });
      expect(run.json().data.metadata.preset).toEqual({ id: preset.id, name: 'Retry twice' });
      expect(run.json().data.config).toMatchObject({ retries: 2, use: { actionTimeout: 999 } });

      const otherProject = await as(owner, {
        method: 'PUT',
        url: `/console/v1/schedules/${schedule.id}`,
        payload: { presetId: '00000000-0000-4000-8000-000000000000' },
      });
      expect(otherProject.statusCode).toBe(404);
      expect(otherProject.json().message).toBe('Preset not found');
    });
  });

  describe('schedule preview', () => {
    it('lists the next five firings in the time zone, and names a bad expression or zone', async () => {
      const preview = await as(member, {
        method: 'GET',
        url: '/console/v1/schedules/preview?cron=30%209%20*%20*%201-5&timezone=Europe/Paris',
      });
      expect(preview.statusCode, preview.body).toBe(200);
      const runs = preview.json().data.nextRuns as string[];
      expect(runs).toHaveLength(5);
      for (const run of runs) {
        const local = new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Paris',
          weekday: 'short',
          hour: '2-digit',
          minute: '2-digit',
        }).format(new Date(run));
        expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:30$/);
      }
      expect([...runs].sort()).toEqual(runs);
      const bad = await as(member, {
        method: 'GET',
        url: '/console/v1/schedules/preview?cron=61%20*%20*%20*%20*',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toMatch(/^Invalid cron expression '61 \* \* \* \*'/);
      const zone = await as(member, {
        method: 'GET',
        url: '/console/v1/schedules/preview?cron=0%203%20*%20*%20*&timezone=Mars/Base',
      });
      expect(zone.statusCode).toBe(400);
      expect(zone.json().message).toBe('Invalid timezone: Mars/Base');
    });
  });

  describe('roles', () => {
    it('lets only owners change roles', async () => {
      const byAdmin = await as(admin, {
        method: 'PUT',
        url: `/console/v1/users/${memberId}`,
        payload: { role: 'admin' },
      });
      expect(byAdmin.statusCode).toBe(403);
      expect(byAdmin.json().message).toBe('Only an owner can change roles');
      const byMember = await as(member, {
        method: 'PUT',
        url: `/console/v1/users/${memberId}`,
        payload: { role: 'admin' },
      });
      expect(byMember.statusCode).toBe(403);
    });

    it('never demotes or removes the last owner, and does once another owner exists', async () => {
      const users = (await as(owner, { method: 'GET', url: '/console/v1/users' })).json().data as Array<{
        id: string;
        email: string;
      }>;
      const ownerId = users.find((user) => user.email === 'admin@localhost')?.id as string;
      const demote = await as(owner, {
        method: 'PUT',
        url: `/console/v1/users/${ownerId}`,
        payload: { role: 'admin' },
      });
      expect(demote.statusCode).toBe(409);
      expect(demote.json().message).toMatch(/last owner cannot be demoted/);
      const remove = await as(owner, { method: 'DELETE', url: `/console/v1/users/${ownerId}` });
      expect(remove.statusCode).toBe(409);
      expect(remove.json().message).toMatch(/last owner cannot be removed/);

      const promoted = await as(owner, {
        method: 'PUT',
        url: `/console/v1/users/${adminId}`,
        payload: { role: 'owner' },
      });
      expect(promoted.statusCode, promoted.body).toBe(200);
      expect(promoted.json().data).toMatchObject({ id: adminId, role: 'owner' });
      // Two owners now: the second demotes the first, and is then the last.
      const demoted = await as(admin, {
        method: 'PUT',
        url: `/console/v1/users/${ownerId}`,
        payload: { role: 'admin' },
      });
      expect(demoted.statusCode, demoted.body).toBe(200);
      const last = await as(admin, {
        method: 'PUT',
        url: `/console/v1/users/${adminId}`,
        payload: { role: 'member' },
      });
      expect(last.statusCode).toBe(409);
      // Restore for the other tests.
      expect(
        (await as(admin, { method: 'PUT', url: `/console/v1/users/${ownerId}`, payload: { role: 'owner' } }))
          .statusCode,
      ).toBe(200);
    });

    it('removes a user and their sessions', async () => {
      const created = await as(owner, {
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'leaving@example.test', password: 'password-123', role: 'member' },
      });
      const cookie = await login(t.app, 'leaving@example.test', 'password-123');
      expect((await as(cookie, { method: 'GET', url: '/console/v1/session' })).statusCode).toBe(200);
      const removed = await as(owner, {
        method: 'DELETE',
        url: `/console/v1/users/${created.json().data.id}`,
      });
      expect(removed.statusCode).toBe(200);
      expect((await as(cookie, { method: 'GET', url: '/console/v1/session' })).statusCode).toBe(401);
      const unknown = await as(owner, {
        method: 'DELETE',
        url: `/console/v1/users/${created.json().data.id}`,
      });
      expect(unknown.statusCode).toBe(404);
    });

    it("shows the organization's concurrency cap that applies: the install's runner slots until one is set", async () => {
      const before = await as(member, { method: 'GET', url: '/console/v1/organization' });
      expect(before.json().data.concurrencyCap).toBe(4);
      // Limits are the install admins' alone: an admin reads them and is refused a change.
      // (A fresh admin: the one above was promoted to owner by an earlier case.)
      await as(owner, {
        method: 'POST',
        url: '/console/v1/users',
        payload: { email: 'billing-admin@example.test', password: 'password-123', role: 'admin' },
      });
      const billingAdmin = await login(t.app, 'billing-admin@example.test', 'password-123');
      expect((await as(billingAdmin, { method: 'GET', url: '/console/v1/organization' })).statusCode).toBe(
        200,
      );
      const refused = await as(billingAdmin, {
        method: 'PUT',
        url: '/console/v1/organization/limits',
        payload: { concurrencyCap: 3 },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('INSTALL_ADMIN_REQUIRED');
      // The bootstrap admin runs the install.
      const set = await as(owner, {
        method: 'PUT',
        url: '/console/v1/organization/limits',
        payload: { concurrencyCap: 3 },
      });
      expect(set.statusCode).toBe(200);
      const after = await as(member, { method: 'GET', url: '/console/v1/organization' });
      expect(after.json().data.concurrencyCap).toBe(3);
    });

    it('keeps webhook management to admins and owners while members view them', async () => {
      expect((await as(member, { method: 'GET', url: '/console/v1/webhooks' })).statusCode).toBe(200);
      const refused = await as(member, {
        method: 'POST',
        url: '/console/v1/webhooks',
        payload: { url: 'https://example.com/hook', events: ['run.completed'] },
      });
      expect(refused.statusCode).toBe(403);
    });
  });
});
