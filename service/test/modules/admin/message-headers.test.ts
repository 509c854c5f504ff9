import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawHeadersMaxBytes } from '../../../src/modules/inboxes/parse.ts';
import { consoleCall, createTestApp, databaseKinds, type TestApp } from '../../helper.ts';

/** The console's message viewer reads the raw header block of a message received over SMTP. */
describe.each(databaseKinds)('raw message headers on %s', (database) => {
  let t: TestApp;
  let address: string;
  let inboxId: string;

  beforeAll(async () => {
    // Background work on: the inboxes module listens for SMTP on a free port.
    t = await createTestApp({ database, background: true });
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: { name: 'headers' },
    });
    expect(created.statusCode, created.body).toBe(201);
    ({ address, id: inboxId } = created.json().data);
  });
  afterAll(async () => t?.close());

  const messages = async () => {
    const listed = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: `/console/v1/email-inboxes/${inboxId}/messages`,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    return listed.json().data as Array<{ id: string; subject: string }>;
  };
  const read = async (messageId: string) => {
    const response = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'GET',
      url: `/console/v1/email-inboxes/${inboxId}/messages/${messageId}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as { subject: string; rawHeaders: string | null; bodyText: string };
  };

  it('keeps the header block of a message sent over SMTP, custom headers included, not the body', async () => {
    const smtp = nodemailer.createTransport({
      host: '127.0.0.1',
      port: t.app.inboxes.smtpPort as number,
      secure: false,
      ignoreTLS: true,
    });
    try {
      const info = await smtp.sendMail({
        from: 'Shop <shop@example.test>',
        to: address,
        subject: 'with headers',
        text: 'the body line',
        headers: { 'X-Trace-Id': 'trace-7f3a', 'X-Campaign': 'winter sale' },
      });
      expect(info.accepted).toHaveLength(1);
    } finally {
      smtp.close();
    }
    const [listed] = await messages();
    if (!listed) throw new Error('no message stored');
    const message = await read(listed.id);
    expect(message.subject).toBe('with headers');
    const raw = message.rawHeaders ?? '';
    // Lines as received (CRLF), names as the sender wrote them (nodemailer writes "X-Trace-ID").
    const lines = raw.split('\r\n');
    expect(lines).toContain('X-Trace-ID: trace-7f3a');
    expect(lines).toContain('X-Campaign: winter sale');
    expect(lines).toContain('Subject: with headers');
    expect(lines).toContain('From: Shop <shop@example.test>');
    expect(raw).toMatch(/^Message-ID: </m);
    // The header block only: the blank line and the body are not part of it.
    expect(raw).not.toContain('the body line');
    expect(raw.endsWith('\r\n\r\n')).toBe(false);

    // The /v1 API's message shape is unchanged (the field is the console viewer's).
    const api = await t.app.inject({
      method: 'GET',
      url: `/v1/email-inboxes/${inboxId}/messages/${listed.id}`,
      headers: { 'x-api-key': t.bootstrap.apiKey },
    });
    expect(api.statusCode, api.body).toBe(200);
    expect(api.json().data).not.toHaveProperty('rawHeaders');
  });

  it('cuts a header block past 64 KB, and shows null for messages stored without one', async () => {
    const long = `X-Long: ${'a'.repeat(rawHeadersMaxBytes + 500)}`;
    await t.app.inboxes.service.deliver(
      Buffer.from(
        `From: big@example.test\r\nTo: ${address}\r\nSubject: huge headers\r\n${long}\r\n\r\nbody\r\n`,
      ),
      [{ inboxId, organizationId: t.bootstrap.organizationId }],
    );
    // Stored the way messages were before headers were kept (the bulk-fixture path).
    await t.app.inboxes.service.store(
      {
        sesMessageId: '<old@x>',
        fromAddress: 'old@example.test',
        subject: 'older',
        bodyText: 'o',
        bodyHtml: '',
        urls: [],
      },
      [{ inboxId, organizationId: t.bootstrap.organizationId }],
    );
    const listed = await messages();
    const huge = await read(listed.find((message) => message.subject === 'huge headers')?.id ?? '');
    expect(Buffer.byteLength(huge.rawHeaders ?? '')).toBe(rawHeadersMaxBytes);
    expect(huge.rawHeaders?.startsWith('From: big@example.test\r\n')).toBe(true);
    const older = await read(listed.find((message) => message.subject === 'older')?.id ?? '');
    expect(older.rawHeaders).toBeNull();
  });
});
