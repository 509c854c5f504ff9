import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpListener, startSmtpListener } from '../../../src/modules/inboxes/smtp.ts';
import { consoleCall, createTestApp, type TestApp } from '../../helper.ts';

describe('SMTP listener', () => {
  let t: TestApp;
  let address: string;
  let inboxId: string;

  beforeAll(async () => {
    // The whole app with its background work: the inboxes module starts SMTP on a free port.
    t = await createTestApp({ background: true, env: { INBOX_DOMAIN: 'Mail.Test.Example' } });
    const created = await consoleCall(t.app, await t.consoleCookie(), {
      method: 'POST',
      url: '/console/v1/email-inboxes',
      payload: { name: 'smtp' },
    });
    expect(created.statusCode, created.body).toBe(201);
    ({ address, id: inboxId } = created.json().data);
  });
  afterAll(async () => t?.close());

  const transport = (port: number) =>
    nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });

  it('listens when the app starts its background work, for INBOX_DOMAIN', async () => {
    expect(address.endsWith('@mail.test.example')).toBe(true);
    const port = t.app.inboxes.smtpPort;
    expect(port).toBeGreaterThan(0);
    const smtp = transport(port as number);
    try {
      // Recipient matching ignores case, as mail domains do.
      const info = await smtp.sendMail({
        from: 'a@b.example',
        to: address.toUpperCase(),
        subject: 'hi',
        text: 'no html here',
      });
      expect(info.accepted).toHaveLength(1);
    } finally {
      smtp.close();
    }
    const response = await t.app.inject({
      method: 'GET',
      url: `/v1/email-inboxes/${inboxId}/messages`,
      headers: { 'x-api-key': t.bootstrap.apiKey },
    });
    expect(response.statusCode).toBe(200);
    const [message] = response.json().data;
    expect(message).toMatchObject({ subject: 'hi', bodyHtml: '', urls: [] });
  });

  it('refuses a message over the size limit with 552 and stores nothing', async () => {
    let listener: SmtpListener | undefined;
    try {
      listener = await startSmtpListener({
        host: '127.0.0.1',
        port: 0,
        service: t.app.inboxes.service,
        log: { warn() {}, error() {} },
        maxMessageBytes: 4096,
      });
      const smtp = transport(listener.port);
      try {
        await expect(
          smtp.sendMail({ from: 'a@b.example', to: address, subject: 'too big', text: 'x'.repeat(20_000) }),
        ).rejects.toMatchObject({ responseCode: 552 });
        const small = await smtp.sendMail({ from: 'a@b.example', to: address, subject: 'small', text: 'ok' });
        expect(small.accepted).toEqual([address]);
      } finally {
        smtp.close();
      }
    } finally {
      await listener?.close();
    }
    const subjects = (await t.app.inboxes.service.listMessages(t.bootstrap.organizationId, inboxId)).map(
      (message) => message.subject,
    );
    expect(subjects).toContain('small');
    expect(subjects).not.toContain('too big');
  });

  it('fails to start on a port already in use', async () => {
    await expect(
      startSmtpListener({
        host: '127.0.0.1',
        port: t.app.inboxes.smtpPort as number,
        service: t.app.inboxes.service,
        log: { warn() {}, error() {} },
      }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
