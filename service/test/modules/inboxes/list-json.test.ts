import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';

/**
 * The message list route writes its JSON body by hand (stored `urls` embedded as they are):
 * it must be exactly what JSON.stringify of the messages would give, for awkward text too.
 */
describe.each(databaseKinds)('GET …/messages body (%s)', (database) => {
  let t: TestApp;
  let inboxId: string;

  beforeAll(async () => {
    t = await createTestApp({ database });
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: {},
    });
    expect(created.statusCode, created.body).toBe(201);
    inboxId = created.json().data.id;
  });
  afterAll(async () => t?.close());

  it('is valid JSON equal to the parsed messages, with escapes, Unicode and urls intact', async () => {
    const service = t.app.inboxes.service;
    const recipient = { inboxId, organizationId: t.bootstrap.organizationId };
    const awkward = 'Quote " backslash \\ tab\t line\u2028sep — Grüße 🎉 </script>';
    await service.store(
      {
        sesMessageId: '<a@x>',
        fromAddress: '"Odd, Name" <odd@example.test>',
        subject: awkward,
        bodyText: `line 1\r\nline 2 ${awkward}`,
        bodyHtml: `<p title="${awkward}">x</p><a href="https://x.example/?q=%22a%22&b=1">y</a>`,
        urls: ['https://x.example/?q=%22a%22&b=1', 'https://x.example/"quoted"\\'],
      },
      [recipient],
    );
    await service.store(
      { sesMessageId: '<b@x>', fromAddress: '', subject: '', bodyText: '', bodyHtml: '', urls: [] },
      [recipient],
    );

    const response = await t.app.inject({
      method: 'GET',
      url: `/v1/email-inboxes/${inboxId}/messages`,
      headers: { 'x-api-key': t.bootstrap.apiKey },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const expected = await service.listMessages(t.bootstrap.organizationId, inboxId);
    expect(response.body).toBe(JSON.stringify({ data: expected }));
    const [empty, full] = response.json().data;
    expect(Object.keys(full)).toEqual([
      'id',
      'fromAddress',
      'subject',
      'bodyText',
      'bodyHtml',
      'receivedAt',
      'urls',
    ]);
    expect(full).toMatchObject({
      fromAddress: '"Odd, Name" <odd@example.test>',
      subject: awkward,
      bodyText: `line 1\r\nline 2 ${awkward}`,
      urls: ['https://x.example/?q=%22a%22&b=1', 'https://x.example/"quoted"\\'],
    });
    expect(empty).toMatchObject({ subject: '', urls: [] });

    // An unknown inbox is still the error handler's 404, not a hand-written body.
    const missing = await t.app.inject({
      method: 'GET',
      url: '/v1/email-inboxes/00000000-0000-4000-8000-000000000000/messages',
      headers: { 'x-api-key': t.bootstrap.apiKey },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Inbox not found', code: 'INBOX_NOT_FOUND' });
  });
});
