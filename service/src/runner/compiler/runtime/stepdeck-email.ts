/**
 * Run-time support for email steps, copied verbatim beside `stepdeck-runtime.ts` into every
 * compiled Playwright project as `stepdeck-email.ts`: polling the service's inbox API for a
 * message, and the links of the one received. It imports nothing (the built-in `fetch`), so
 * the exported project runs unmodified.
 */

export interface EmailRecord {
  subject: string;
  text: string;
  urls: string[];
  from: string | null;
  receivedAt: string | null;
}

export interface WaitForEmailOptions {
  inbox: string;
  subjectContains?: string | undefined;
  from?: string | undefined;
  timeoutMs?: number | undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What `Stepdeck.waitForEmail` asks for, templates already resolved. */
export interface InboxQuery {
  baseUrl: string;
  apiKey: string;
  inbox: string;
  /** Lower-cased filters. */
  subjectContains: string | undefined;
  from: string | undefined;
  timeoutMs: number;
  /** Messages received at or after this ISO time count. */
  since: string;
  /** The subject filter as the user wrote it (for the timeout message). */
  subjectFilter: string | undefined;
}

/**
 * A `waitForEmail` step's query: the service and key from the environment (a run sets them; an
 * exported project's user does), the filters' templates resolved. Messages count from `since`,
 * the start of the step before this one, so a mail triggered by the preceding click is not missed.
 */
export function inboxQuery(
  options: WaitForEmailOptions,
  step: { resolve: (template: string) => string; since: Date; inboxApiUrl: string | undefined },
): InboxQuery {
  const baseUrl = (process.env.STEPDECK_API_URL || step.inboxApiUrl || '').replace(/\/+$/, '');
  if (!baseUrl) throw new Error('waitForEmail needs STEPDECK_API_URL (the Stepdeck service URL)');
  const apiKey = process.env.STEPDECK_API_KEY;
  if (!apiKey) throw new Error('waitForEmail needs STEPDECK_API_KEY (an API key with emailInbox:read)');
  const inbox = step.resolve(options.inbox);
  const subjectContains = options.subjectContains
    ? step.resolve(options.subjectContains).toLowerCase()
    : undefined;
  const from = options.from ? step.resolve(options.from).toLowerCase() : undefined;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const since = step.since.toISOString();
  return {
    baseUrl,
    apiKey,
    inbox,
    subjectContains,
    from,
    timeoutMs,
    since,
    subjectFilter: options.subjectContains,
  };
}

/**
 * `gotoEmailLink`: the first URL of `email` (a variable `waitForEmail` stored) that contains
 * `contains`, templates resolved only once the variable is known to hold an email.
 */
export function emailLink(
  email: Partial<EmailRecord> | undefined,
  variable: string,
  contains: string | undefined,
  resolve: (template: string) => string,
): string {
  if (!email || !Array.isArray(email.urls)) {
    throw new Error(`gotoEmailLink: vars.${variable} holds no email (run waitForEmail first)`);
  }
  const needle = contains ? resolve(contains) : undefined;
  const url = email.urls.find((candidate) => !needle || candidate.includes(needle));
  if (!url) {
    throw new Error(
      `gotoEmailLink: no link${needle ? ` containing "${needle}"` : ''} in the email "${email.subject ?? ''}"`,
    );
  }
  return url;
}

/** Polls the inbox API until a matching message arrives, or fails naming the inbox and the wait. */
export async function pollInbox(query: InboxQuery): Promise<EmailRecord> {
  const { baseUrl, apiKey, inbox, subjectContains, from, timeoutMs, since } = query;
  const url = `${baseUrl}/v1/email-inboxes/${encodeURIComponent(inbox)}/messages?since=${encodeURIComponent(since)}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url, { headers: { 'x-api-key': apiKey, accept: 'application/json' } });
    if (!response.ok) {
      const detail = await response.text().catch(() => '');
      throw new Error(`waitForEmail: inbox "${inbox}" answered ${response.status} ${detail.slice(0, 200)}`);
    }
    const payload = (await response.json()) as {
      data?: Array<{
        subject?: string | null;
        bodyText?: string | null;
        urls?: string[] | null;
        fromAddress?: string | null;
        receivedAt?: string | null;
      }>;
    };
    const match = (payload.data ?? []).find(
      (message) =>
        (!subjectContains || (message.subject ?? '').toLowerCase().includes(subjectContains)) &&
        (!from || (message.fromAddress ?? '').toLowerCase().includes(from)),
    );
    if (match) {
      return {
        subject: match.subject ?? '',
        text: match.bodyText ?? '',
        urls: match.urls ?? [],
        from: match.fromAddress ?? null,
        receivedAt: match.receivedAt ?? null,
      };
    }
    if (Date.now() >= deadline) {
      const filters = [
        subjectContains && `subject containing "${query.subjectFilter}"`,
        from && `from "${from}"`,
      ]
        .filter(Boolean)
        .join(' and ');
      throw new Error(
        `waitForEmail: no message${filters ? ` with ${filters}` : ''} arrived in inbox "${inbox}" within ${timeoutMs} ms`,
      );
    }
    await sleep(Math.min(500, Math.max(0, deadline - Date.now())));
  }
}
