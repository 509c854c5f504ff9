import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, login, type TestApp } from '../../helper.ts';
import { apiTest, createTest } from '../runs/helpers.ts';
import { finishedRun, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.ts';

const certificate = makeCertificate();
const token = 'T0123/B0456/abcdefSECRETtoken';

describe.each(databaseKinds)('alert channels on %s', (database) => {
  let t: TestApp;
  let admin: string;
  let member: string;
  let receiver: Receiver;
  const base = () => `/console/v1/projects/${t.bootstrap.projectId}/alert-channels`;
  const as = (cookie: string, inject: InjectOptions) => consoleCall(t.app, cookie, inject);
  const create = (payload: Record<string, unknown>, cookie = admin) =>
    as(cookie, { method: 'POST', url: base(), payload });
  const allowLoopback = (targets: string[]) =>
    as(admin, {
      method: 'PUT',
      url: '/console/v1/install/settings',
      payload: { webhookAllowedTargets: targets },
    });
  const runOfProject = (status: 'completed' | 'failed', scheduleId: string | null = null) =>
    finishedRun(t.bootstrap.organizationId, {
      status,
      scheduleId,
      project: { id: t.bootstrap.projectId, name: 'Default' },
      target: { type: 'test', id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee', name: 'checkout' },
      ...(scheduleId ? { trigger: { type: 'schedule', schedule: 'nightly' } } : {}),
    });

  beforeAll(async () => {
    receiver = await startReceiver(certificate);
    t = await createTestApp({ database });
    t.app.alerts.configure({ ca: certificate.cert, attemptDelaysMs: [0] });
    admin = await t.consoleCookie();
    const created = await as(admin, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: 'member@example.com', password: 'member-password', role: 'member' },
    });
    expect(created.statusCode, created.body).toBe(201);
    member = await login(t.app, 'member@example.com', 'member-password');
  });
  afterEach(async () => {
    await t.app.alerts.pending();
    await t.ctx.db.deleteFrom('alertChannels').execute();
    await t.ctx.db.deleteFrom('alertStreams').execute();
    await allowLoopback([]);
    receiver.requests.splice(0);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('refuses private targets like webhooks do, until the install allows them', async () => {
    const refused = await create({ kind: 'slack', name: 'chat', url: receiver.url(`/services/${token}`) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: 'ALERT_CHANNEL_INVALID',
      message: `url must not point to a private, loopback, link-local or carrier-grade NAT address (127.0.0.1)`,
    });
    const plain = await create({ kind: 'teams', name: 'chat', url: 'http://teams.example.com/hook' });
    expect(plain.json()).toEqual({ code: 'ALERT_CHANNEL_INVALID', message: 'url must use https://' });
    await allowLoopback(['127.0.0.0/8']);
    expect(
      (await create({ kind: 'slack', name: 'chat', url: receiver.url(`/services/${token}`) })).statusCode,
    ).toBe(201);
  });

  it('names what is missing: a URL, recipients, the SMTP relay, a schedule of this project', async () => {
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [
        { kind: 'slack', name: 'a' },
        400,
        'ALERT_CHANNEL_INVALID',
        'url: a slack channel needs its incoming-webhook URL',
      ],
      [
        { kind: 'email', name: 'a' },
        400,
        'ALERT_CHANNEL_INVALID',
        'recipients: an email channel needs at least one address',
      ],
      [{ kind: 'email', name: 'a', recipients: ['not-an-address'] }, 400, 'INVALID_REQUEST', 'recipients'],
      [{ kind: 'email', name: 'a', recipients: ['qa@example.com'] }, 400, 'SMTP_RELAY_NOT_SET', 'SMTP relay'],
      [{ kind: 'pager', name: 'a' }, 400, 'INVALID_REQUEST', 'kind must be slack, teams or email'],
      [
        { kind: 'teams', name: 'a', url: 'https://teams.example.com/x', scheduleId: crypto.randomUUID() },
        400,
        'ALERT_CHANNEL_INVALID',
        'scheduleId: no schedule of this project has this id',
      ],
    ];
    t.app.webhooks.configure({ resolve: async () => [{ address: '93.184.215.14', family: 4 }] });
    try {
      for (const [payload, status, code, message] of cases) {
        const response = await create(payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(status);
        expect(response.json().code, JSON.stringify(payload)).toBe(code);
        expect(response.json().message).toContain(message);
      }
    } finally {
      t.app.webhooks.configure({
        resolve: (await import('../../../src/modules/webhooks/url-guard.ts')).systemResolver,
      });
    }
  });

  it('lets members read channels with chat URLs masked, and only admins change them', async () => {
    await allowLoopback(['127.0.0.1']);
    const created = await create({ kind: 'slack', name: 'chat', url: receiver.url(`/services/${token}`) });
    expect(created.json().data.url).toBe(receiver.url(`/services/${token}`));
    const id = created.json().data.id as string;
    const read = await as(member, { method: 'GET', url: base() });
    expect(read.statusCode).toBe(200);
    expect(read.json().data[0].url).toBe(`https://127.0.0.1:${receiver.port}/services/…`);
    expect(read.body).not.toContain(token);
    for (const inject of [
      { method: 'POST', url: base(), payload: { kind: 'slack', name: 'x', url: 'https://example.com/x' } },
      { method: 'PUT', url: `${base()}/${id}`, payload: { enabled: false } },
      { method: 'DELETE', url: `${base()}/${id}` },
      { method: 'POST', url: `${base()}/${id}/test` },
    ] as const) {
      const refused = await as(member, inject);
      expect(refused.statusCode, inject.url).toBe(403);
      expect(refused.json().code).toBe('ADMIN_ROLE_REQUIRED');
    }
    const tested = await as(admin, { method: 'POST', url: `${base()}/${id}/test` });
    expect(tested.json().data).toEqual({ sent: true, error: null });
    const [message] = await receiver.waitFor(1);
    expect(JSON.parse(String(message?.rawBody)).text).toMatch(
      /^Test alert from Stepdeck: Alert channel "chat"/,
    );
    const audit = await as(admin, { method: 'GET', url: '/console/v1/audit-log?limit=100' });
    expect(audit.body).toContain('POST /console/v1/projects/:projectId/alert-channels/:channelId/test');
    expect(audit.body).not.toContain(token);
    // A form that sends the URL back as the member view shows it (masked) keeps the stored one.
    const renamed = await as(admin, {
      method: 'PUT',
      url: `${base()}/${id}`,
      payload: { name: 'chat renamed', url: `https://127.0.0.1:${receiver.port}/services/…` },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data).toMatchObject({
      name: 'chat renamed',
      url: receiver.url(`/services/${token}`),
    });
  });

  it('keeps a failure streak per stream: first failure, every failure when asked, recovery; a schedule channel hears only its schedule', async () => {
    await allowLoopback(['127.0.0.1']);
    const testId = await createTest(t, apiTest('nightly check', 'http://127.0.0.1:9/'));
    const schedule = await as(admin, {
      method: 'POST',
      url: '/console/v1/schedules',
      payload: {
        name: 'nightly',
        projectId: t.bootstrap.projectId,
        cron: '0 2 * * *',
        testIds: [testId],
        enabled: false,
      },
    });
    expect(schedule.statusCode, schedule.body).toBe(201);
    const scheduleId = schedule.json().data.id as string;
    expect((await create({ kind: 'slack', name: 'project', url: receiver.url('/project') })).statusCode).toBe(
      201,
    );
    expect(
      (
        await create({
          kind: 'slack',
          name: 'loud',
          url: receiver.url('/loud'),
          everyFailure: true,
          onRecovered: false,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await create({ kind: 'teams', name: 'schedule', url: receiver.url('/schedule'), scheduleId }))
        .statusCode,
    ).toBe(201);
    const hear = async (run: ReturnType<typeof runOfProject>) => {
      t.ctx.events.emit('run.finished', run);
      await t.app.alerts.pending();
    };
    const seen = () => receiver.requests.map((request) => request.url);

    await hear(runOfProject('failed'));
    expect(seen().sort()).toEqual(['/loud', '/project']);
    await hear(runOfProject('failed'));
    expect(seen().sort()).toEqual(['/loud', '/loud', '/project']);
    const recovered = runOfProject('completed');
    await hear(recovered);
    // The same run heard twice (a recovery after a restart) alerts once.
    await hear(recovered);
    expect(seen().sort()).toEqual(['/loud', '/loud', '/project', '/project']);

    receiver.requests.splice(0);
    await hear(runOfProject('failed', scheduleId));
    expect(seen().sort()).toEqual(['/loud', '/project', '/schedule']);
    await hear(runOfProject('completed', scheduleId));
    expect(seen().sort()).toEqual(['/loud', '/project', '/project', '/schedule', '/schedule']);
    const bodies = receiver.requests
      .filter((request) => request.url === '/schedule')
      .map((request) => JSON.parse(String(request.rawBody)).attachments[0].content.body[0].text);
    expect(bodies).toEqual([
      'Run failed: Nightly checkout (1 of 3 failed)',
      'Recovered: Nightly checkout passed again',
    ]);
  });

  it("records a receiver that refuses as the channel's last error", async () => {
    await allowLoopback(['127.0.0.1']);
    receiver.replies.splice(0, receiver.replies.length, { status: 404 });
    try {
      const created = await create({ kind: 'slack', name: 'gone', url: receiver.url('/gone') });
      const tested = await as(admin, { method: 'POST', url: `${base()}/${created.json().data.id}/test` });
      expect(tested.json().data).toEqual({ sent: false, error: 'Expected HTTP 2xx, got 404: ok' });
      const read = await as(admin, { method: 'GET', url: `${base()}/${created.json().data.id}` });
      expect(read.json().data).toMatchObject({
        lastError: 'Expected HTTP 2xx, got 404: ok',
        lastSentAt: null,
      });
    } finally {
      receiver.replies.splice(0, receiver.replies.length, { status: 200 });
    }
  });
});
