import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { TestCertificate } from '../webhooks/receiver.ts';

export interface SmtpReceiver {
  port: number;
  messages: Array<{ envelopeTo: string[]; mail: ParsedMail }>;
  /** Every AUTH attempt the relay saw, and whether it was accepted. */
  logins: Array<{ username: string; accepted: boolean }>;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP relay on loopback: STARTTLS with the test certificate, AUTH PLAIN/LOGIN required
 * with the given credentials, every accepted message parsed.
 */
export async function startSmtpReceiver(
  certificate: TestCertificate,
  credentials: { username: string; password: string },
): Promise<SmtpReceiver> {
  const messages: SmtpReceiver['messages'] = [];
  const logins: SmtpReceiver['logins'] = [];
  const server = new SMTPServer({
    key: certificate.key,
    cert: certificate.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // Credentials only over TLS (the default): the client must STARTTLS first.
    onAuth(auth, _session, callback) {
      const accepted = auth.username === credentials.username && auth.password === credentials.password;
      logins.push({ username: auth.username ?? '', accepted });
      if (!accepted) callback(new Error('Invalid username or password'));
      else callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push({ envelopeTo: session.envelope.rcptTo.map((to) => to.address), mail });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    logins,
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`SMTP relay got ${messages.length} of ${count} messages`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
