import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleCall,
  createApiKey,
  createTestApp,
  databaseKinds,
  login,
  type TestApp,
} from '../../helper.ts';

const resolve = async (hostname: string) => {
  const table: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'other.example.com': ['93.184.216.35'],
    'rebind.example.com': ['93.184.216.34', '10.0.0.9'],
  };
  const found = table[hostname];
  if (!found) throw new Error('ENOTFOUND');
  return found.map((address) => ({ address, family: 4 as const }));
};

describe.each(databaseKinds)('webhook console on %s', (database) => {
  let t: TestApp;
  let cookie: string;
  let memberCookie: string;
  beforeAll(async () => {
    t = await createTestApp({ database, env: { PUBLIC_URL: 'https://stepdeck.example.com' } });
    t.app.webhooks.configure({ resolve });
    cookie = await t.consoleCookie();
    const member = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/users',
      payload: { email: `member-${database}@example.com`, password: 'member-password', role: 'member' },
    });
    expect(member.statusCode, member.body).toBe(201);
    memberCookie = await login(t.app, `member-${database}@example.com`, 'member-password');
  });
  afterAll(async () => t?.close());

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, as = cookie) =>
    consoleCall(t.app, as, { method, url, ...(payload ? { payload } : {}) });

  it('creates a webhook returning the secret once, then lists, reads, edits and deletes it', async () => {
    const created = await call('POST', '/console/v1/webhooks', {
      url: 'https://hooks.example.com/in',
      events: ['run.completed', 'run.failed', 'run.failed'],
      customData: { team: 'qa' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const data = created.json().data;
    expect(Object.keys(data).sort()).toEqual(['enabled', 'events', 'id', 'secret', 'url']);
    expect(data).toMatchObject({
      url: 'https://hooks.example.com/in',
      events: ['run.completed', 'run.failed'],
      enabled: true,
    });
    expect(data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    // Stored so it can sign, never returned again.
    const stored = await t.ctx.db
      .selectFrom('webhooks')
      .select('secret')
      .where('id', '=', data.id)
      .executeTakeFirst();
    expect(stored?.secret).toBe(data.secret);

    const list = await call('GET', '/console/v1/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([
      expect.objectContaining({ id: data.id, customData: { team: 'qa' }, enabled: true }),
    ]);
    const one = await call('GET', `/console/v1/webhooks/${data.id}`, undefined, memberCookie);
    expect(one.statusCode).toBe(200);
    expect(one.json().data.url).toBe('https://hooks.example.com/in');
    for (const body of [list.body, one.body]) expect(body).not.toContain(data.secret);

    const edited = await call('PUT', `/console/v1/webhooks/${data.id}`, {
      url: 'https://other.example.com/x',
      events: ['run.failed'],
      customData: null,
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data).toMatchObject({
      url: 'https://other.example.com/x',
      events: ['run.failed'],
      customData: null,
    });
    expect(edited.body).not.toContain(data.secret);

    const disabled = await call('POST', `/console/v1/webhooks/${data.id}/disable`);
    expect(disabled.json().data.enabled).toBe(false);
    const enabled = await call('POST', `/console/v1/webhooks/${data.id}/enable`);
    expect(enabled.json().data.enabled).toBe(true);

    const rotated = await call('POST', `/console/v1/webhooks/${data.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rotated.json().data.secret).not.toBe(data.secret);
    expect((await call('GET', `/console/v1/webhooks/${data.id}`)).body).not.toContain(
      rotated.json().data.secret,
    );

    const deliveries = await call(
      'GET',
      `/console/v1/webhooks/${data.id}/deliveries`,
      undefined,
      memberCookie,
    );
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json().data).toEqual([]);

    const removed = await call('DELETE', `/console/v1/webhooks/${data.id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ data: null });
    expect((await call('GET', `/console/v1/webhooks/${data.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/console/v1/webhooks/${data.id}`)).json().message).toBe(
      'Webhook not found',
    );
  });

  it('can be created disabled', async () => {
    const created = await call('POST', '/console/v1/webhooks', {
      url: 'https://hooks.example.com/off',
      events: ['run.failed'],
      enabled: false,
    });
    expect(created.json().data.enabled).toBe(false);
  });

  it('lets members read but not change', async () => {
    const created = await call('POST', '/console/v1/webhooks', {
      url: 'https://hooks.example.com/m',
      events: ['run.failed'],
    });
    const id = created.json().data.id;
    expect((await call('GET', '/console/v1/webhooks', undefined, memberCookie)).statusCode).toBe(200);
    for (const [method, url] of [
      ['POST', '/console/v1/webhooks'],
      ['PUT', `/console/v1/webhooks/${id}`],
      ['POST', `/console/v1/webhooks/${id}/disable`],
      ['POST', `/console/v1/webhooks/${id}/rotate-secret`],
      ['DELETE', `/console/v1/webhooks/${id}`],
      ['POST', `/console/v1/webhooks/${id}/deliveries/${id}/retry`],
    ] as const) {
      const response = await call(
        method,
        url,
        method === 'DELETE' ? undefined : { url: 'https://hooks.example.com/x', events: ['run.failed'] },
        memberCookie,
      );
      expect(response.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await t.app.inject({ method: 'GET', url: '/console/v1/webhooks' })).statusCode).toBe(401);
  });

  it.each([
    [{ url: 'http://hooks.example.com/', events: ['run.failed'] }, 'url must use https://'],
    [{ url: 'https://u:p@hooks.example.com/', events: ['run.failed'] }, 'url must not contain credentials'],
    [{ url: 'https://localhost/', events: ['run.failed'] }, 'url must not point to localhost'],
    [{ url: 'https://127.0.0.1/', events: ['run.failed'] }, '127.0.0.1'],
    [{ url: 'https://rebind.example.com/', events: ['run.failed'] }, '10.0.0.9'],
    [{ url: 'https://missing.example.com/', events: ['run.failed'] }, 'does not resolve'],
    [{ url: 'https://hooks.example.com/', events: [] }, 'at least one event'],
    [{ url: 'https://hooks.example.com/', events: ['run.started'] }, 'run.completed or run.failed'],
    [{ events: ['run.failed'] }, 'url'],
    [{ url: 'https://hooks.example.com/', events: ['run.failed'], customData: [1, 2] }, 'customData'],
    [{ url: 'https://hooks.example.com/', events: ['run.failed'], customData: 'x' }, 'customData'],
    [
      { url: 'https://hooks.example.com/', events: ['run.failed'], customData: { blob: 'x'.repeat(4100) } },
      'customData must be at most 4096 bytes',
    ],
  ])('refuses %j with a 400 naming the problem', async (payload, message) => {
    const response = await call('POST', '/console/v1/webhooks', payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().message).toContain(message);
  });

  it('checks the URL on edit too', async () => {
    const created = await call('POST', '/console/v1/webhooks', {
      url: 'https://hooks.example.com/e',
      events: ['run.failed'],
    });
    const response = await call('PUT', `/console/v1/webhooks/${created.json().data.id}`, {
      url: 'https://rebind.example.com/',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain('10.0.0.9');
    const invalidId = await call('GET', '/console/v1/webhooks/not-a-uuid');
    expect(invalidId.statusCode).toBe(400);
  });

  it('serves a sample payload for each event to any valid key', async () => {
    const key = await createApiKey(t, ['emailInbox:read'], 'sample reader');
    for (const event of ['run.completed', 'run.failed'] as const) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/v1/webhooks/sample-payload?event=${event}`,
        headers: { 'x-api-key': key },
      });
      expect(response.statusCode).toBe(200);
      const body = response.json().data;
      expect(body.event).toBe(event);
      expect(Object.keys(body)).toEqual(['event', 'deliveryId', 'timestamp', 'run']);
      expect(Object.keys(body.run)).toEqual([
        'id',
        'name',
        'status',
        'url',
        'startedAt',
        'finishedAt',
        'durationMs',
        'trigger',
        'project',
        'branch',
        'target',
        'stats',
        'tests',
        // Additive: the run's screenshots that differ from their baselines (docs/api.md).
        'visualChanges',
        // Additive, with failures only: each classed against the base branch.
        ...(event === 'run.failed' ? ['triage'] : []),
      ]);
      if (event === 'run.failed')
        expect(body.run.triage).toMatchObject({
          counts: { new: 1, known: 0, flaky: 0, quarantined: 0 },
          failures: [{ name: 'Pay with card', triage: 'new' }],
        });
      expect(body.run.status).toBe(event === 'run.completed' ? 'completed' : 'failed');
      expect(body.run.url.startsWith('https://stepdeck.example.com/console/')).toBe(true);
    }
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/v1/webhooks/sample-payload?event=run.cancelled',
      headers: { 'x-api-key': key },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toContain('run.completed or run.failed');
    const missing = await t.app.inject({
      method: 'GET',
      url: '/v1/webhooks/sample-payload',
      headers: { 'x-api-key': key },
    });
    expect(missing.statusCode).toBe(400);
    const anonymous = await t.app.inject({
      method: 'GET',
      url: '/v1/webhooks/sample-payload?event=run.failed',
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
