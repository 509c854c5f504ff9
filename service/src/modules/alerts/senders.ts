import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { Agent, request } from 'undici';
import type { SmtpRelay } from '../install-settings/public.ts';
import { checkTargetUrl, pinnedLookup, type Resolver, UrlRuleError } from '../webhooks/public.ts';

export interface AlertSettings {
  resolve: Resolver;
  /** Extra CA to trust for chat receivers and the SMTP relay (tests); installs use NODE_EXTRA_CA_CERTS. */
  ca?: string;
  /** How long one attempt may take. */
  deadlineMs: number;
  /** Attempt n is due this long after attempt n-1 failed; as many attempts as entries. */
  attemptDelaysMs: readonly number[];
  /** How often an idle instance looks for due retries and the deliveries a restart left. */
  pollIntervalMs: number;
}

/**
 * Five attempts over about 36 minutes: a chat service's or relay's short outage still gets
 * the alert through, and a pending delivery survives a restart.
 */
export const defaultAlertSettings = (resolve: Resolver): AlertSettings => ({
  resolve,
  deadlineMs: 10_000,
  attemptDelaysMs: [0, 10_000, 60_000, 300_000, 1_800_000],
  pollIntervalMs: 5_000,
});

/** An attempt that failed, in words fit for the channel's `lastError` (never the URL: it holds a token). */
export class AlertSendError extends Error {}

/**
 * POSTs a chat message (Slack or Teams incoming webhook) through the same private-target rules
 * as webhooks, connecting only to the addresses checked. Any 2xx is success.
 */
export async function postChatMessage(
  url: string,
  body: Record<string, unknown>,
  options: { settings: AlertSettings; allowedTargets: string[] },
): Promise<void> {
  const { settings } = options;
  let target: Awaited<ReturnType<typeof checkTargetUrl>>;
  try {
    target = await checkTargetUrl(url, { resolve: settings.resolve, allowedTargets: options.allowedTargets });
  } catch (error) {
    if (error instanceof UrlRuleError) throw new AlertSendError(error.message);
    throw error;
  }
  const agent = new Agent({
    connect: {
      lookup: pinnedLookup(target),
      ...(settings.ca ? { ca: [...tls.rootCertificates, settings.ca] } : {}),
    },
  });
  try {
    const response = await request(target.url, {
      method: 'POST',
      dispatcher: agent,
      signal: AbortSignal.timeout(settings.deadlineMs),
      headers: { 'content-type': 'application/json', 'user-agent': 'Stepdeck-Alerts' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text().catch(() => '');
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new AlertSendError(
        `Expected HTTP 2xx, got ${response.statusCode}${text ? `: ${text.slice(0, 200)}` : ''}`,
      );
  } catch (error) {
    if (error instanceof AlertSendError) throw error;
    const err = error as {
      name?: string;
      code?: string;
      message?: string;
      cause?: { code?: string; message?: string };
    };
    if (err.name === 'TimeoutError') throw new AlertSendError(`No answer within ${settings.deadlineMs} ms`);
    const code = err.cause?.code ?? err.code;
    throw new AlertSendError(
      `Connection failed: ${code ? `${code} ` : ''}${err.cause?.message ?? err.message ?? ''}`.trim(),
    );
  } finally {
    await agent.close().catch(() => undefined);
  }
}

/** Sends one email through the install's SMTP relay. */
export async function sendEmail(
  relay: SmtpRelay,
  recipients: string[],
  message: { subject: string; text: string; html: string },
  settings: AlertSettings,
): Promise<void> {
  const transport = nodemailer.createTransport({
    host: relay.host,
    port: relay.port,
    secure: relay.security === 'tls',
    requireTLS: relay.security === 'starttls',
    ignoreTLS: relay.security === 'none',
    ...(relay.user ? { auth: { user: relay.user, pass: relay.password ?? '' } } : {}),
    connectionTimeout: settings.deadlineMs,
    greetingTimeout: settings.deadlineMs,
    socketTimeout: settings.deadlineMs,
    ...(settings.ca ? { tls: { ca: [...tls.rootCertificates, settings.ca] } } : {}),
  });
  try {
    await transport.sendMail({ from: relay.from, to: recipients, ...message });
  } catch (error) {
    const err = error as { code?: string; responseCode?: number; message?: string };
    // nodemailer's messages name the server's answer; the password is never part of them.
    throw new AlertSendError(
      `SMTP relay ${relay.host}:${relay.port} refused or failed: ${err.code ?? ''} ${err.message ?? ''}`.trim(),
    );
  } finally {
    transport.close();
  }
}
