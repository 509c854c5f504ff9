import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { type InboxService, type Recipient, smtpMaxMessageBytes } from './service.ts';

export interface SmtpListener {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/** What became of one SMTP transaction (metrics): stored, or refused at RCPT/DATA, or failed. */
export type SmtpOutcome = 'accepted' | 'refused' | 'too_large' | 'failed';

interface Logger {
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** An SMTP reply: smtp-server sends `responseCode` and the message to the client. */
const reply = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

/**
 * The receiving side of email inboxes: an inbound-only SMTP listener (like an MX). It
 * accepts mail only for addresses of existing inboxes at INBOX_DOMAIN, refusing others at
 * RCPT with 550, so it can never relay. No AUTH and no STARTTLS: senders are the tested
 * applications, normally on the same host or network.
 */
export async function startSmtpListener(options: {
  host: string;
  port: number;
  service: InboxService;
  log: Logger;
  maxMessageBytes?: number;
  onOutcome?: (outcome: SmtpOutcome) => void;
}): Promise<SmtpListener> {
  const { service, log } = options;
  const count = (outcome: SmtpOutcome) => options.onOutcome?.(outcome);
  const maxBytes = options.maxMessageBytes ?? smtpMaxMessageBytes;
  /** Recipients accepted at RCPT, per session, so DATA need not look them up again. */
  const accepted = new WeakMap<SMTPServerSession, Map<string, Recipient>>();

  const server = new SMTPServer({
    banner: 'Stepdeck test inbox',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    size: maxBytes,
    logger: false,
    socketTimeout: 60_000,
    closeTimeout: 2_000,
    onRcptTo(address, session, callback) {
      service.resolveRecipient(address.address).then(
        (recipient) => {
          if (!recipient) {
            count('refused');
            return callback(reply(550, `5.1.1 <${address.address}>: no such inbox`));
          }
          const map = accepted.get(session) ?? new Map<string, Recipient>();
          accepted.set(session, map);
          map.set(address.address.toLowerCase(), recipient);
          callback();
        },
        (error: unknown) => {
          log.error({ err: error }, 'inbox recipient lookup failed');
          count('failed');
          callback(reply(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          count('too_large');
          return callback(reply(552, `5.3.4 Message exceeds the ${maxBytes}-byte size limit`));
        }
        const map = accepted.get(session);
        const recipients = session.envelope.rcptTo
          .map((address) => map?.get(address.address.toLowerCase()))
          .filter((recipient): recipient is Recipient => recipient !== undefined);
        if (recipients.length === 0) {
          count('refused');
          return callback(reply(554, '5.5.1 No valid recipients'));
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined;
        service.deliver(Buffer.concat(chunks), recipients, from).then(
          () => {
            count('accepted');
            callback(null, 'OK: delivered');
          },
          (error: unknown) => {
            log.error({ err: error }, 'storing an inbound email failed');
            count('failed');
            callback(reply(451, '4.3.0 Could not store the message, try again later'));
          },
        );
      });
    },
  });
  server.on('error', (error) => log.warn({ err: error }, 'SMTP connection error'));

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
