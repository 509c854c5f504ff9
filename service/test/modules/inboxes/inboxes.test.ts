import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.ts';
import {
  consoleCall,
  createApiKey,
  createTestApp,
  databaseKinds,
  login,
  type TestApp,
} from '../../helper.ts';

interface Inbox {
  id: string;
  address: string;
  name: string | null;
  createdAt: string;
  messageCount: number;
}

interface ListedMessage {
  id: string;
  fromAddress: string;
  subject: string;
  bodyText: string;
  bodyHtml: string;
  receivedAt: string;
  urls: string[];
}

/** A clock the test moves by hand; starts at the real time so sessions stay valid. */
class ManualClock implements Clock {
  current = Date.now();
  now() {
    return new Date(this.current);
  }
  advance(ms: number) {
    this.current += ms;
  }
}

const hour = 3_600_000;

describe.each(databaseKinds)('email inboxes on %s', (database) => {
  let t: TestApp;
  let clock: ManualClock;
  let key: string;
  let cookie: string;
  let smtp: Transporter;
  let inboxA: Inbox;
  let inboxB: Inbox;
  let stopInboxes: (() => Promise<void>) | undefined;

  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, apiKey = key) =>
    t.app.inject({ method, url, headers: { 'x-api-key': apiKey } });
  const messagesOf = async (inbox: string, query = '') => {
    const response = await api('GET', `/v1/email-inboxes/${encodeURIComponent(inbox)}/messages${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as ListedMessage[];
  };
  const createInbox = async (body: object = {}) =>
    consoleCall(t.app, cookie, { method: 'POST', url: '/console/v1/email-inboxes', payload: body });
  const send = (message: SendMailOptions) => smtp.sendMail({ from: 'App <noreply@app.example>', ...message });

  beforeAll(async () => {
    clock = new ManualClock();
    t = await createTestApp({ database, clock });
    // The module's own background start (SMTP listener + retention sweep), without the
    // other modules' background work (runners) that createTestApp({background: true}) adds.
    await t.app.inboxes.start();
    stopInboxes = () => t.app.inboxes.stop();
    cookie = await t.consoleCookie();
    key = await createApiKey(t, ['emailInbox:read', 'emailInbox:delete']);
    const port = t.app.inboxes.smtpPort;
    if (!port) throw new Error('SMTP listener did not start');
    smtp = nodemailer.createTransport({ host: t.config.host, port, secure: false, ignoreTLS: true });
    const a = await createInbox({ name: 'Sign-up flow' });
    expect(a.statusCode, a.body).toBe(201);
    inboxA = a.json().data;
    const b = await createInbox();
    expect(b.statusCode, b.body).toBe(201);
    inboxB = b.json().data;
  });
  afterAll(async () => {
    smtp?.close();
    await stopInboxes?.();
    expect(t.app.inboxes.smtpPort).toBeUndefined();
    await t?.close();
  });

  it('creates inboxes in the console with a random address at INBOX_DOMAIN', async () => {
    expect(inboxA).toMatchObject({ name: 'Sign-up flow', messageCount: 0 });
    expect(inboxA.address).toMatch(/^[0-9a-f]{16}@inbox\.localhost$/);
    expect(inboxB.name).toBeNull();
    expect(inboxB.address).not.toBe(inboxA.address);
    const listed = await consoleCall(t.app, cookie, { method: 'GET', url: '/console/v1/email-inboxes' });
    expect(listed.statusCode).toBe(200);
    expect((listed.json().data as Inbox[]).map((inbox) => inbox.id).sort()).toEqual(
      [inboxA.id, inboxB.id].sort(),
    );
  });

  it('refuses to create inboxes with an API key', async () => {
    const refused = await api('POST', '/v1/email-inboxes');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/created in the console only/);
    expect((await t.app.inject({ method: 'POST', url: '/v1/email-inboxes' })).statusCode).toBe(401);
  });

  it('reports the limits', async () => {
    const response = await api('GET', '/v1/email-inboxes/limits');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: { maxPerOrg: 5, maxMessages: 1000, messageRetentionHours: 12, bodyMaxBytes: 131072 },
    });
  });

  it("tells the console where to send mail: the SMTP listener's host and bound port", async () => {
    const response = await consoleCall(t.app, cookie, {
      method: 'GET',
      url: '/console/v1/email-inboxes/limits',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({
      maxPerOrg: 5,
      smtp: { host: t.config.host, port: t.app.inboxes.smtpPort },
    });
    // The same address the tests' own sender uses (every delivery below goes there).
    expect(t.app.inboxes.smtpPort).toBeGreaterThan(0);
  });

  it('delivers over SMTP and reads by inbox UUID and by address', async () => {
    const info = await send({
      to: inboxA.address,
      subject: 'Welcome',
      text: 'Hello there',
      html: '<p>Hello</p>',
    });
    expect(info.accepted).toEqual([inboxA.address]);
    const byId = await messagesOf(inboxA.id);
    expect(byId).toHaveLength(1);
    expect(byId[0]).toMatchObject({
      fromAddress: 'noreply@app.example',
      subject: 'Welcome',
      bodyHtml: '<p>Hello</p>',
      urls: [],
    });
    expect(byId[0]?.bodyText.trim()).toBe('Hello there');
    expect(await messagesOf(inboxA.address)).toEqual(byId);
    expect(await messagesOf(inboxA.address.toUpperCase())).toEqual(byId);

    const single = await api('GET', `/v1/email-inboxes/${inboxA.id}/messages/${byId[0]?.id}`);
    expect(single.statusCode).toBe(200);
    const message = single.json().data;
    expect(Object.keys(message).sort()).toEqual(
      [
        'id',
        'inboxId',
        'organizationId',
        'sesMessageId',
        'fromAddress',
        'subject',
        'bodyText',
        'bodyHtml',
        'receivedAt',
        'createdAt',
      ].sort(),
    );
    expect(message).toMatchObject({ inboxId: inboxA.id, sesMessageId: info.messageId, subject: 'Welcome' });
    expect(message.organizationId).toBe(t.bootstrap.organizationId);

    const inboxes = (await api('GET', '/v1/email-inboxes')).json().data as Inbox[];
    expect(inboxes.find((inbox) => inbox.id === inboxA.id)?.messageCount).toBe(1);
    expect(inboxes.find((inbox) => inbox.id === inboxB.id)?.messageCount).toBe(0);

    // Another inbox's message is not reachable through this inbox.
    const wrongInbox = await api('GET', `/v1/email-inboxes/${inboxB.id}/messages/${byId[0]?.id}`);
    expect(wrongInbox.statusCode).toBe(404);
    expect(wrongInbox.json().message).toBe('Message not found');
  });

  it('refuses unknown recipients at RCPT with 550', async () => {
    const unknown = `nobody@${t.config.inboxDomain}`;
    await expect(send({ to: unknown, subject: 'x', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
    await expect(send({ to: 'someone@elsewhere.example', subject: 'x', text: 'x' })).rejects.toMatchObject({
      responseCode: 550,
    });
    // With one good and one unknown recipient, only the good one is accepted.
    const mixed = await send({ to: [inboxB.address, unknown], subject: 'Mixed', text: 'x' });
    expect(mixed.accepted).toEqual([inboxB.address]);
    expect(mixed.rejected).toEqual([unknown]);
    expect((await messagesOf(inboxB.id)).map((message) => message.subject)).toEqual(['Mixed']);
  });

  it('parses multipart text+html with attachments and UTF-8 subjects', async () => {
    const subject = 'Grüße — 你好 🎉 Bestätigen Sie';
    await send({
      to: inboxA.address,
      subject,
      text: 'Plain part: ünïcödé',
      html: '<h1>HTML part</h1><a href="https://app.example/confirm?t=1&amp;u=2">Confirm</a>',
      attachments: [
        { filename: 'notes.txt', content: 'ATTACHMENT-CONTENT' },
        { filename: 'pixel.png', content: Buffer.from('89504e470d0a1a0a', 'hex'), contentType: 'image/png' },
        { filename: 'inline.png', content: Buffer.from('89504e47', 'hex'), cid: 'logo@app' },
      ],
    });
    const [latest] = await messagesOf(inboxA.id);
    expect(latest?.subject).toBe(subject);
    expect(latest?.bodyText.trim()).toBe('Plain part: ünïcödé');
    expect(latest?.bodyHtml).toBe(
      '<h1>HTML part</h1><a href="https://app.example/confirm?t=1&amp;u=2">Confirm</a>',
    );
    expect(latest?.urls).toEqual(['https://app.example/confirm?t=1&u=2']);
    expect(JSON.stringify(latest)).not.toContain('ATTACHMENT-CONTENT');
  });

  it('extracts every http(s) link of the HTML body with an HTML parser', async () => {
    await send({
      to: inboxA.address,
      subject: 'Links',
      text: 'See https://text-only.example/ignored',
      html: `<p>Start https://bare.example/not-a-link</p>
        <a href="https://one.example/a?x=1&amp;y=2">one</a>
        <a href="http://127.0.0.1:3000/magic/abc">two</a>
        <a href="mailto:help@app.example">mail</a>
        <a href="/relative">rel</a>
        <!-- <a href="https://commented.example/">c</a> -->`,
    });
    const [latest] = await messagesOf(inboxA.id);
    expect(latest?.subject).toBe('Links');
    expect(latest?.urls).toEqual(['https://one.example/a?x=1&y=2', 'http://127.0.0.1:3000/magic/abc']);
  });

  it('truncates bodies to 131072 bytes on a character boundary', async () => {
    const text = `a${'€'.repeat(50_000)}`; // 150001 bytes
    const html = `<p>${'😀'.repeat(40_000)}</p>`; // 160007 bytes
    await send({ to: inboxA.address, subject: 'Big', text, html });
    const [latest] = await messagesOf(inboxA.id);
    expect(latest?.subject).toBe('Big');
    // 1 + 3 × 43690 = 131071 bytes: the next euro sign would cross the limit.
    expect(latest?.bodyText).toBe(`a${'€'.repeat(43_690)}`);
    const htmlBytes = Buffer.byteLength(latest?.bodyHtml ?? '');
    expect(htmlBytes).toBeLessThanOrEqual(131072);
    expect(htmlBytes).toBeGreaterThan(131072 - 4);
    expect(html.startsWith(latest?.bodyHtml ?? 'x')).toBe(true);
    expect(latest?.bodyHtml).not.toContain('\uFFFD');
  });

  it('filters with since, newest first', async () => {
    const inbox = inboxB.id;
    clock.advance(60_000);
    const first = clock.now().toISOString();
    await send({ to: inboxB.address, subject: 'First', text: '1' });
    clock.advance(60_000);
    const second = clock.now().toISOString();
    await send({ to: inboxB.address, subject: 'Second', text: '2' });
    await send({ to: inboxB.address, subject: 'Third', text: '3' });

    expect((await messagesOf(inbox)).map((m) => m.subject)).toEqual(['Third', 'Second', 'First', 'Mixed']);
    expect((await messagesOf(inbox, `?since=${first}`)).map((m) => m.subject)).toEqual([
      'Third',
      'Second',
      'First',
    ]);
    expect((await messagesOf(inbox, `?since=${encodeURIComponent(second)}`)).map((m) => m.subject)).toEqual([
      'Third',
      'Second',
    ]);
    // Offsets are understood: the same instant written in another zone.
    const shifted = new Date(Date.parse(second) + 2 * hour).toISOString().replace('Z', '+02:00');
    expect((await messagesOf(inbox, `?since=${encodeURIComponent(shifted)}`)).map((m) => m.subject)).toEqual([
      'Third',
      'Second',
    ]);
    const bad = await api('GET', `/v1/email-inboxes/${inbox}/messages?since=yesterday`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/since/);
  });

  it('keeps the newest 1000 messages per inbox, evicting the oldest', async () => {
    const created = await createInbox({ name: 'bulk' });
    expect(created.statusCode, created.body).toBe(201);
    const bulk: Inbox = created.json().data;
    const service = t.app.inboxes.service;
    const recipient = { inboxId: bulk.id, organizationId: t.bootstrap.organizationId };
    await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        service.store(
          {
            sesMessageId: `<bulk-${index}@test>`,
            fromAddress: 'bulk@app.example',
            subject: `bulk ${index}`,
            bodyText: '',
            bodyHtml: '',
            urls: [],
          },
          [recipient],
        ),
      ),
    );
    let messages = await messagesOf(bulk.id);
    expect(messages).toHaveLength(1000);
    expect(messages[0]?.subject).toBe('bulk 999');
    expect(messages[999]?.subject).toBe('bulk 0');

    await send({ to: bulk.address, subject: 'one more', text: 'x' });
    messages = await messagesOf(bulk.id);
    expect(messages).toHaveLength(1000);
    expect(messages[0]?.subject).toBe('one more');
    expect(messages[999]?.subject).toBe('bulk 1');
    expect(messages.some((message) => message.subject === 'bulk 0')).toBe(false);
    const inboxes = (await api('GET', '/v1/email-inboxes')).json().data as Inbox[];
    expect(inboxes.find((inbox) => inbox.id === bulk.id)?.messageCount).toBe(1000);
  });

  it('limits an organization to 5 inboxes', async () => {
    // inboxA, inboxB and the bulk inbox exist: two more fit.
    expect((await createInbox({ name: 'four' })).statusCode).toBe(201);
    const fifth = await createInbox({ name: 'five' });
    expect(fifth.statusCode).toBe(201);
    const sixth = await createInbox({ name: 'six' });
    expect(sixth.statusCode).toBe(400);
    expect(sixth.json()).toEqual({ message: 'inbox limit reached', code: 'INBOX_LIMIT_REACHED' });
    const tooLong = await createInbox({ name: 'x'.repeat(200) });
    expect(tooLong.statusCode).toBe(400);

    // Deleting one (and its messages) frees a place; scopes are enforced.
    const fifthInbox: Inbox = fifth.json().data;
    const readOnly = await createApiKey(t, ['emailInbox:read'], 'read only');
    expect((await api('DELETE', `/v1/email-inboxes/${fifthInbox.id}`, readOnly)).statusCode).toBe(403);
    const deleted = await api('DELETE', `/v1/email-inboxes/${encodeURIComponent(fifthInbox.address)}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ data: null });
    expect((await api('GET', `/v1/email-inboxes/${fifthInbox.id}/messages`)).statusCode).toBe(404);
    expect((await createInbox({ name: 'five again' })).statusCode).toBe(201);
    expect((await api('GET', '/v1/email-inboxes/not-an-inbox/messages')).statusCode).toBe(400);
  });

  it('deletes an inbox with its messages; mail to it is then refused', async () => {
    const inboxes = (await api('GET', '/v1/email-inboxes')).json().data as Inbox[];
    const victim = inboxes.find((inbox) => inbox.name === 'five again') as Inbox;
    await send({ to: victim.address, subject: 'doomed', text: 'x' });
    expect(await messagesOf(victim.id)).toHaveLength(1);
    expect((await api('DELETE', `/v1/email-inboxes/${victim.id}`)).statusCode).toBe(200);
    const remaining = await t.ctx.db
      .selectFrom('emailMessages')
      .select('id')
      .where('inboxId', '=', victim.id)
      .execute();
    expect(remaining).toEqual([]);
    await expect(send({ to: victim.address, subject: 'late', text: 'x' })).rejects.toMatchObject({
      responseCode: 550,
    });
    expect((await createInbox({ name: 'replacement' })).statusCode).toBe(201);
  });

  it('requires a subscription to delete', async () => {
    const off = await consoleCall(t.app, cookie, {
      method: 'PUT',
      url: '/console/v1/subscription',
      payload: { active: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    const refused = await api('DELETE', `/v1/email-inboxes/${inboxB.id}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('LICENSE_REQUIRED');
    expect((await api('GET', `/v1/email-inboxes/${inboxB.id}/messages`)).statusCode).toBe(200);
    await consoleCall(t.app, cookie, {
      method: 'PUT',
      url: '/console/v1/subscription',
      payload: { active: true },
    });
  });

  it('keeps organizations apart', async () => {
    const org = await consoleCall(t.app, cookie, {
      method: 'POST',
      url: '/console/v1/organizations',
      payload: {
        name: 'Other team',
        ownerEmail: `other-${database}@example.com`,
        ownerPassword: 'other-password',
      },
    });
    expect(org.statusCode, org.body).toBe(201);
    const otherCookie = await login(t.app, `other-${database}@example.com`, 'other-password');
    const keyResponse = await consoleCall(t.app, otherCookie, {
      method: 'POST',
      url: '/console/v1/api-keys',
      payload: { name: 'other', scopes: ['emailInbox:read', 'emailInbox:delete'] },
    });
    const otherKey = keyResponse.json().data.key as string;
    const otherInbox = await consoleCall(t.app, otherCookie, {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: {},
    });
    // The other organization has its own five places.
    expect(otherInbox.statusCode, otherInbox.body).toBe(201);

    const [message] = await messagesOf(inboxA.id);
    expect((await api('GET', '/v1/email-inboxes', otherKey)).json().data).toEqual([
      { ...otherInbox.json().data, messageCount: 0 },
    ]);
    for (const ref of [inboxA.id, encodeURIComponent(inboxA.address)]) {
      const list = await api('GET', `/v1/email-inboxes/${ref}/messages`, otherKey);
      expect(list.statusCode).toBe(404);
      expect(list.json().message).toBe('Inbox not found');
      expect(
        (await api('GET', `/v1/email-inboxes/${ref}/messages/${message?.id}`, otherKey)).statusCode,
      ).toBe(404);
      expect((await api('DELETE', `/v1/email-inboxes/${ref}`, otherKey)).statusCode).toBe(404);
    }
    // A message id of org A looked up through org B's own inbox is not found either.
    const otherId = otherInbox.json().data.id as string;
    const cross = await api('GET', `/v1/email-inboxes/${otherId}/messages/${message?.id}`, otherKey);
    expect(cross.statusCode).toBe(404);
    expect(await messagesOf(inboxA.id)).not.toHaveLength(0);
  });

  it('expires messages after 12 hours: hidden on read, deleted by the sweep', async () => {
    await send({ to: inboxB.address, subject: 'Fresh', text: 'x' });
    const count = async () =>
      (await t.ctx.db.selectFrom('emailMessages').select('id').where('inboxId', '=', inboxB.id).execute())
        .length;
    const stored = await count();
    expect(stored).toBeGreaterThan(1);

    clock.advance(12 * hour - 1000);
    expect((await messagesOf(inboxB.id)).map((m) => m.subject)).toContain('Fresh');

    clock.advance(2000);
    expect(await messagesOf(inboxB.id)).toEqual([]);
    const listed = (await api('GET', '/v1/email-inboxes')).json().data as Inbox[];
    expect(listed.find((inbox) => inbox.id === inboxB.id)?.messageCount).toBe(0);
    expect(await count()).toBe(stored);

    const swept = await t.app.inboxes.service.sweepExpired();
    expect(swept).toBeGreaterThanOrEqual(stored);
    expect(await count()).toBe(0);

    // New mail after the sweep is kept.
    await send({ to: inboxB.address, subject: 'After', text: 'x' });
    expect((await messagesOf(inboxB.id)).map((m) => m.subject)).toEqual(['After']);
  });
});
