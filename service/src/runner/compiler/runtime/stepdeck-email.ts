/**
 * Run-time support for email steps, copied verbatim beside `stepdeck-runtime.ts` into every
 * compiled Playwright project as `stepdeck-email.ts`: polling the service's inbox API for a
 * message. It imports nothing (the built-in `fetch`), so the exported project runs unmodified.
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
