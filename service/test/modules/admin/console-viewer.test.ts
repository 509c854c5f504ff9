import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTest, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';

/**
 * The console's viewer and action routes: the inbox message viewer, the
 * webhook sample payloads, a schedule's "trigger now" and a run started with a preset.
 */
describe.each(databaseKinds)('console viewer routes on %s', (database) => {
  let t: TestApp;
  let owner: string;
  let member: string;
  let inboxId: string;
  let address: string;
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);

  beforeAll(async () => {
    t = await createTestApp({ database });
    owner = await t.consoleCookie();
    const created = await as(owner, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'viewer-member@example.test', password: 'password-123', role: 'member' },
    });
    expect(created.statusCode, created.body).toBe(201);
    member = await login(t.app, 'viewer-member@example.test', 'password-123');
    const inbox = await as(owner, {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: { name: 'v' },
    });
    expect(inbox.statusCode, inbox.body).toBe(201);
    ({ id: inboxId, address } = inbox.json().data);
  });
  afterAll(async () => t?.close());

  const deliver = (subject: string, html: string) =>
    t.app.inboxes.service.deliver(
      Buffer.from(
        `From: Shop <shop@example.test>\r\nTo: ${address}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`,
      ),
      [{ inboxId, organizationId: t.bootstrap.organizationId }],
    );

  it('lists messages newest first to members, reads one, and lets only admins delete', async () => {
    await deliver('first', '<p>Hello <a href="https://example.test/confirm?x=1">confirm</a></p>');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await deliver('second', '<p>again</p>');

    const listed = await as(member, { method: 'GET', url: `/console/v1/email-inboxes/${inboxId}/messages` });
    expect(listed.statusCode, listed.body).toBe(200);
    const messages = listed.json().data;
    expect(messages.map((message: { subject: string }) => message.subject)).toEqual(['second', 'first']);
    expect(messages[1]).toMatchObject({
      fromAddress: expect.stringContaining('shop@example.test'),
      urls: ['https://example.test/confirm?x=1'],
    });

    const one = await as(member, {
      method: 'GET',
      url: `/console/v1/email-inboxes/${address}/messages/${messages[1].id}`,
    });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data).toMatchObject({ id: messages[1].id, inboxId, subject: 'first' });

    const limits = await as(member, { method: 'GET', url: '/console/v1/email-inboxes/limits' });
    expect(limits.json().data).toMatchObject({ maxPerOrg: 5, maxMessages: 1000 });

    const refused = await as(member, {
      method: 'DELETE',
      url: `/console/v1/email-inboxes/${inboxId}/messages/${messages[0].id}`,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('This action needs an admin or owner role');

    const deleted = await as(owner, {
      method: 'DELETE',
      url: `/console/v1/email-inboxes/${inboxId}/messages/${messages[0].id}`,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const again = await as(owner, {
      method: 'DELETE',
      url: `/console/v1/email-inboxes/${inboxId}/messages/${messages[0].id}`,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe('Message not found');
    const after = await as(owner, { method: 'GET', url: `/console/v1/email-inboxes/${inboxId}/messages` });
    expect(after.json().data.map((message: { subject: string }) => message.subject)).toEqual(['first']);

    // Who did it is in the audit log; the member's refusal too.
    const audit = await as(owner, { method: 'GET', url: '/console/v1/audit-log?resource=messages' });
    const entries = audit.json().data as Array<{ actor: { label: string }; status: number }>;
    expect(entries.map((entry) => [entry.actor.label, entry.status])).toEqual([
      [t.bootstrap.adminEmail, 404],
      [t.bootstrap.adminEmail, 200],
      ['viewer-member@example.test', 403],
    ]);
  });

  it("serves a message's HTML under a CSP that blocks scripts and, unless asked, remote loads", async () => {
    await deliver(
      'pixel',
      '<p>hi</p><img src="https://tracker.example.test/p.gif"><script>alert(1)</script>',
    );
    const [message] = (
      await as(member, { method: 'GET', url: `/console/v1/email-inboxes/${inboxId}/messages` })
    ).json().data;
    const url = `/console/v1/email-inboxes/${inboxId}/messages/${message.id}/html`;
    const blocked = await as(member, { method: 'GET', url });
    expect(blocked.statusCode, blocked.body).toBe(200);
    expect(blocked.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = String(blocked.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain('img-src data: cid:;');
    expect(policy).toContain('sandbox allow-popups');
    expect(policy).not.toContain('allow-scripts');
    expect(blocked.body).toContain('<img src="https://tracker.example.test/p.gif">');
    const remote = await as(member, { method: 'GET', url: `${url}?remote=1` });
    expect(String(remote.headers['content-security-policy'])).toContain('img-src data: cid: https: http:;');
    expect(String(remote.headers['content-security-policy'])).toContain("default-src 'none'");
    const other = await as(member, {
      method: 'GET',
      url: `/console/v1/email-inboxes/${inboxId}/messages/00000000-0000-4000-8000-000000000000/html`,
    });
    expect(other.statusCode).toBe(404);
  });

  it('deletes an inbox with its messages for an admin, never for a member', async () => {
    const inbox = await as(owner, { method: 'POST', url: '/console/v1/email-inboxes', payload: {} });
    const id = inbox.json().data.id;
    expect((await as(member, { method: 'DELETE', url: `/console/v1/email-inboxes/${id}` })).statusCode).toBe(
      403,
    );
    expect((await as(owner, { method: 'DELETE', url: `/console/v1/email-inboxes/${id}` })).statusCode).toBe(
      200,
    );
    const gone = await as(owner, { method: 'GET', url: `/console/v1/email-inboxes/${id}/messages` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('Inbox not found');
  });

  it('shows each event sample payload to a signed-in member', async () => {
    for (const event of ['run.completed', 'run.failed']) {
      const sample = await as(member, {
        method: 'GET',
        url: `/console/v1/webhooks/sample-payload?event=${event}`,
      });
      expect(sample.statusCode, sample.body).toBe(200);
      expect(sample.json().data).toMatchObject({ event, run: { status: event.slice(4) } });
    }
    const bad = await as(member, {
      method: 'GET',
      url: '/console/v1/webhooks/sample-payload?event=run.nope',
    });
    expect(bad.statusCode).toBe(400);
  });

  it('starts a run with a preset from a session and records it; an API key may not name one', async () => {
    const test = await createTest(t, { name: 'preset run', status: 'active', metadata: { type: 'api' } });
    const preset = await as(owner, {
      method: 'POST',
      url: `/console/v1/projects/${t.bootstrap.projectId}/presets`,
      payload: { name: 'retry twice', config: { retries: 2, timeout: 30000 } },
    });
    expect(preset.statusCode, preset.body).toBe(201);
    const presetId = preset.json().data.id;

    const byKey = await t.api({
      method: 'POST',
      url: `/v1/tests/${test.id}/remote-run`,
      payload: { presetId },
    });
    expect(byKey.statusCode).toBe(400);
    expect(byKey.json().message).toContain('presetId');

    const unknown = await as(member, {
      method: 'POST',
      url: `/v1/tests/${test.id}/remote-run`,
      headers: { 'x-project-id': t.bootstrap.projectId },
      payload: { presetId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('Preset not found');

    const started = await as(member, {
      method: 'POST',
      url: `/v1/tests/${test.id}/remote-run`,
      headers: { 'x-project-id': t.bootstrap.projectId },
      payload: { presetId, config: { retries: 1 } },
    });
    expect(started.statusCode, started.body).toBe(200);
    const run = await t.api({ method: 'GET', url: `/v1/test-runs/${started.json().data.runId}` });
    expect(run.json().data.metadata).toMatchObject({ preset: { id: presetId, name: 'retry twice' } });
    const stored = await t.ctx.db
      .selectFrom('runs')
      .select('config')
      .where('id', '=', started.json().data.runId)
      .executeTakeFirstOrThrow();
    // The run's own config over the preset's.
    expect(JSON.parse(stored.config as string)).toMatchObject({ retries: 1, timeout: 30000 });
  });

  it('triggers a schedule now for a member, and names its runs', async () => {
    const test = await createTest(t, { name: 'scheduled run', status: 'active', metadata: { type: 'api' } });
    const schedule = await as(owner, {
      method: 'POST',
      url: '/console/v1/schedules',
      payload: { name: 'nightly', projectId: t.bootstrap.projectId, testIds: [test.id], cron: '0 3 * * *' },
    });
    expect(schedule.statusCode, schedule.body).toBe(201);
    const id = schedule.json().data.id;
    const triggered = await as(member, { method: 'POST', url: `/console/v1/schedules/${id}/trigger` });
    expect(triggered.statusCode, triggered.body).toBe(200);
    const runId = triggered.json().data.runId;
    const runs = await as(member, {
      method: 'GET',
      url: `/v1/test-runs?scheduleId=${id}`,
      headers: { 'x-project-id': t.bootstrap.projectId },
    });
    expect(runs.statusCode, runs.body).toBe(200);
    expect(runs.json().data.map((run: { id: string }) => run.id)).toEqual([runId]);
    const missing = await as(member, {
      method: 'POST',
      url: '/console/v1/schedules/00000000-0000-4000-8000-000000000000/trigger',
    });
    expect(missing.statusCode).toBe(404);
  });
});
