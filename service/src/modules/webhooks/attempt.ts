import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { type ConnectionPool, newAgent } from './connections.ts';
import type { DeliveryRow } from './repository.ts';
import { allowedTargetsNow, type WebhookSettings } from './settings.ts';
import { checkTargetUrl, UrlRuleError } from './url-guard.ts';

export interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  error: string | null;
}

/** The error of an attempt cut short by the instance stopping (the attempt is handed back). */
export const stoppedError = 'stopped';

export const sign = (secret: string, body: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('hex');

/**
 * One attempt of a delivery: the URL rules again (DNS may have changed since the webhook was
 * saved), then a POST pinned to the checked addresses, within the deadline.
 */
export async function postDelivery(
  row: Pick<DeliveryRow, 'id' | 'event' | 'body'> & { url: string; secret: string },
  options: { settings: WebhookSettings; connections: ConnectionPool; stop: AbortSignal },
): Promise<AttemptResult> {
  const { settings, stop } = options;
  const deadline = AbortSignal.timeout(settings.deadlineMs);
  const signal = AbortSignal.any([deadline, stop]);
  const failure = (error: unknown) =>
    describeFailure(error, { deadline, stop, deadlineMs: settings.deadlineMs });
  let target: Awaited<ReturnType<typeof checkTargetUrl>>;
  try {
    target = await abortable(
      allowedTargetsNow(settings).then((allowedTargets) =>
        checkTargetUrl(row.url, { resolve: settings.resolve, allowedTargets }),
      ),
      signal,
    );
  } catch (error) {
    if (error instanceof UrlRuleError) return { ok: false, responseCode: null, error: error.message };
    return failure(error);
  }
  // Kept-alive connections and TLS sessions are reused only within the agent of this
  // exact checked target (host name + addresses just checked): see connections.ts.
  const agent = settings.reuseConnections
    ? options.connections.agentFor(target, settings.ca)
    : newAgent(target, settings.ca);
  try {
    const response = await request(target.url, {
      method: 'POST',
      dispatcher: agent,
      signal,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'Service-Webhook',
        'X-Service-Event': row.event,
        'X-Service-Delivery': row.id,
        'X-Service-Signature': sign(row.secret, row.body),
      },
      body: row.body,
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    if (response.statusCode === 200) return { ok: true, responseCode: 200, error: null };
    const redirect = response.statusCode >= 300 && response.statusCode < 400;
    return {
      ok: false,
      responseCode: response.statusCode,
      error: `Expected HTTP 200, got ${response.statusCode}${redirect ? ' (redirects are not followed)' : ''}`,
    };
  } catch (error) {
    return failure(error);
  } finally {
    if (!settings.reuseConnections) agent.destroy().catch(() => undefined);
  }
}

function describeFailure(
  error: unknown,
  context: { deadline: AbortSignal; stop: AbortSignal; deadlineMs: number },
): AttemptResult {
  if (context.stop.aborted && !context.deadline.aborted) {
    return { ok: false, responseCode: null, error: stoppedError };
  }
  if (context.deadline.aborted) {
    return {
      ok: false,
      responseCode: null,
      error: `No HTTP 200 within ${context.deadlineMs} ms (timed out)`,
    };
  }
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  const message = err.cause?.message ?? err.message ?? String(error);
  return {
    ok: false,
    responseCode: null,
    error: `Connection failed: ${code ? `${code} ` : ''}${message}`.trim(),
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
