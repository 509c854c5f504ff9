import { randomUUID } from 'node:crypto';
import { Parser } from 'htmlparser2';
import { simpleParser } from 'mailparser';

/** The fields of one received mail the inbox stores. */
export interface ParsedEmail {
  sesMessageId: string;
  fromAddress: string;
  subject: string;
  bodyText: string;
  bodyHtml: string;
  urls: string[];
  /** The raw header block (see `rawHeaderBlock`); absent for messages not received over SMTP. */
  rawHeaders?: string;
}

/** Largest raw header block stored per message (the viewer's Headers tab); longer ones are cut. */
export const rawHeadersMaxBytes = 64 * 1024;

/**
 * The message's header block as received: everything before the first empty line (CRLF or a
 * bare LF), without that line, as UTF-8 (RFC 6532 allows it; other bytes become U+FFFD), cut
 * to `maxBytes` without splitting a character. Only the head of the message is decoded.
 */
export function rawHeaderBlock(raw: Buffer, maxBytes = rawHeadersMaxBytes): string {
  const ends = [raw.indexOf('\r\n\r\n'), raw.indexOf('\n\n')].filter((index) => index >= 0);
  const end = ends.length > 0 ? Math.min(...ends) : raw.length;
  // Up to 3 bytes more than kept, so the cut below never splits a character it could keep.
  const head = raw.subarray(0, Math.min(end, maxBytes + 3)).toString('utf8');
  return truncateUtf8(withoutNul(head), maxBytes);
}

/**
 * Cuts `value` to at most `maxBytes` of UTF-8 without splitting a character: the cut moves
 * back over continuation bytes (10xxxxxx) to the start of the character it would split.
 */
export function truncateUtf8(value: string, maxBytes: number): string {
  if (value.length * 3 <= maxBytes) return value;
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= maxBytes) return value;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** Elements whose attribute is a followable link. */
const linkAttributes: Record<string, string> = { a: 'href', area: 'href' };

/**
 * Every absolute http(s) link of an HTML document, in document order without repeats.
 * Tokenized by an HTML parser, so entities are decoded (`&amp;`) and links in comments,
 * scripts or attribute-like text are not picked up.
 */
export function extractUrls(html: string): string[] {
  if (!html) return [];
  const found = new Set<string>();
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const attribute = linkAttributes[name];
        const value = attribute ? attributes[attribute] : undefined;
        if (!value) return;
        const url = value.trim();
        if (/^https?:\/\//i.test(url) && URL.canParse(url)) found.add(url);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return [...found];
}

/** PostgreSQL text cannot hold NUL; mail bodies occasionally do. */
const withoutNul = (value: string) => (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value);

/** Parses a raw RFC 5322 message into the stored fields, each body cut to `bodyMaxBytes`. */
export async function parseEmail(
  raw: Buffer,
  options: { bodyMaxBytes: number; envelopeFrom?: string },
): Promise<ParsedEmail> {
  const mail = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true });
  const fromHeader = mail.from?.value.find((entry) => entry.address)?.address;
  const html = typeof mail.html === 'string' ? withoutNul(mail.html) : '';
  return {
    sesMessageId: mail.messageId ?? `<${randomUUID()}@stepdeck>`,
    fromAddress: withoutNul(fromHeader ?? options.envelopeFrom ?? ''),
    subject: withoutNul(mail.subject ?? ''),
    bodyText: truncateUtf8(withoutNul(mail.text ?? ''), options.bodyMaxBytes),
    bodyHtml: truncateUtf8(html, options.bodyMaxBytes),
    // Links come from the whole HTML body, so a link past the stored cut is still followable.
    urls: extractUrls(html),
    rawHeaders: rawHeaderBlock(raw),
  };
}
