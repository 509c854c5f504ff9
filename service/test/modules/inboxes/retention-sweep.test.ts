import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRetentionSweep } from '../../../src/modules/inboxes/index.ts';
import { issueRunInboxAccess } from '../../../src/modules/inboxes/public.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';

const hour = 3_600_000;

/** The retention sweep's own timer (not just one call of the sweep): it fires repeatedly. */
describe.each(databaseKinds)('retention sweep timer (%s)', (database) => {
  let t: TestApp;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  let recipient: { inboxId: string; organizationId: string };

  beforeAll(async () => {
    t = await createTestApp({ database, clock });
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: { name: 'sweep' },
    });
    expect(created.statusCode, created.body).toBe(201);
    recipient = { inboxId: created.json().data.id, organizationId: t.bootstrap.organizationId };
  });
  afterAll(async () => t?.close());

  const deliver = (subject: string) =>
    t.app.inboxes.service.deliver(
      Buffer.from(`From: app@example.test\r\nSubject: ${subject}\r\n\r\nbody\r\n`),
      [recipient],
    );
  const storedSubjects = async () =>
    (
      await t.ctx.db
        .selectFrom('emailMessages')
        .select('subject')
        .where('inboxId', '=', recipient.inboxId)
        .orderBy('subject')
        .execute()
    ).map((row) => row.subject);

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('deletes expired rows at start and again on every tick, keeping fresh ones', async () => {
    await deliver('old');
    offsetMs += 13 * hour;
    await deliver('fresh');
    const sweeps: number[] = [];
    const stop = await startRetentionSweep(t.ctx, t.app.inboxes.service, {
      intervalMs: 40,
      onSweep: (deleted) => sweeps.push(deleted),
    });
    try {
      // The immediate sweep removed the 13-hour-old message only.
      expect(sweeps[0]).toBe(1);
      expect(await storedSubjects()).toEqual(['fresh']);

      // Later ticks of the timer (no call from the test) delete what expires afterwards.
      offsetMs += 13 * hour;
      await deliver('newest');
      await until(async () => (await storedSubjects()).length === 1, 'the timer to delete "fresh"');
      expect(await storedSubjects()).toEqual(['newest']);
      expect(sweeps.length).toBeGreaterThan(1);
      expect(sweeps.slice(1)).toContain(1);
    } finally {
      await stop();
    }
    // Stopped: nothing more is swept.
    const count = sweeps.length;
    offsetMs += 13 * hour;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sweeps.length).toBe(count);
    expect(await storedSubjects()).toEqual(['newest']);
  });

  it('also deletes internal run keys older than any run lasts, and only those', async () => {
    const runKeys = () =>
      t.ctx.db
        .selectFrom('apiKeys')
        .select(['name', 'scopes', 'createdByUserId'])
        .where('name', 'like', 'stepdeck-run:%')
        .orderBy('name')
        .execute();
    const emailTest = [
      { steps: [{ id: 's1', name: 'mail', action: { name: 'waitForEmail', inbox: 'x@y', variable: 'm' } }] },
    ] as never;
    const stale = await issueRunInboxAccess(t.ctx.db, clock, {
      organizationId: t.bootstrap.organizationId,
      runId: 'stale-run',
      apiUrl: 'http://127.0.0.1:1',
      tests: emailTest,
    });
    expect(stale.env.STEPDECK_API_KEY).toMatch(/^sd_[0-9a-f]{48}$/);
    offsetMs += 8 * hour;
    const live = await issueRunInboxAccess(t.ctx.db, clock, {
      organizationId: t.bootstrap.organizationId,
      runId: 'live-run',
      apiUrl: 'http://127.0.0.1:1',
      tests: emailTest,
    });
    // A run without email steps gets no key at all.
    const none = await issueRunInboxAccess(t.ctx.db, clock, {
      organizationId: t.bootstrap.organizationId,
      runId: 'no-email-run',
      apiUrl: 'http://127.0.0.1:1',
      tests: [{ steps: [{ id: 's1', name: 'open', action: { name: 'goto', url: '/' } }] }] as never,
    });
    expect(none.env).toEqual({});
    expect(await runKeys()).toEqual([
      { name: 'stepdeck-run:live-run', scopes: '["emailInbox:read"]', createdByUserId: null },
      { name: 'stepdeck-run:stale-run', scopes: '["emailInbox:read"]', createdByUserId: null },
    ]);

    // The key can read inboxes and nothing else.
    const key = live.env.STEPDECK_API_KEY as string;
    const read = await t.app.inject({
      method: 'GET',
      url: '/v1/email-inboxes',
      headers: { 'x-api-key': key },
    });
    expect(read.statusCode).toBe(200);
    const tests = await t.app.inject({
      method: 'GET',
      url: '/v1/tests',
      headers: { 'x-api-key': key, 'x-project-id': t.bootstrap.projectId },
    });
    expect(tests.statusCode).toBe(403);

    const stop = await startRetentionSweep(t.ctx, t.app.inboxes.service, { intervalMs: 60_000 });
    await stop();
    expect((await runKeys()).map((row) => row.name)).toEqual(['stepdeck-run:live-run']);
    await live.release();
    await live.release();
    expect(await runKeys()).toEqual([]);
    const after = await t.app.inject({
      method: 'GET',
      url: '/v1/email-inboxes',
      headers: { 'x-api-key': key },
    });
    expect(after.statusCode).toBe(401);
  });
});
