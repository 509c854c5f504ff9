import { createHash } from 'node:crypto';

/** What a failure is made of, as the run report records it. */
export interface FailureShape {
  /** The stable id of the failing step (null when no step of the user's failed: a runner error). */
  stepId: string | null;
  /** The failing step's action in the user's words: `assertText #out`, `click not .item`. */
  action: string | null;
  /** The user-facing error, used only when no step failed. */
  errorMessage: string | null;
}

const uuidPattern = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const isoTimePattern =
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const clockPattern = /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?\b/gi;
const hexIdPattern = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi;
const numberPattern = /\d+(?:[.,]\d+)*/g;
const quotedPattern = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g;

/**
 * A text with its volatile values replaced by placeholders: UUIDs, timestamps and clock times,
 * long hex ids, numbers, and quoted dynamic text (`text="Order 1234"` → `text=<q>`), so the
 * same failure on another run, with other ids or times, reads the same.
 */
export function stripVolatile(text: string): string {
  return text
    .replace(quotedPattern, '<q>')
    .replace(uuidPattern, '<id>')
    .replace(isoTimePattern, '<time>')
    .replace(clockPattern, '<time>')
    .replace(hexIdPattern, '<id>')
    .replace(numberPattern, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The normalised signature of a failure, before hashing (readable, for logs and tests). */
export function failureSignature(failure: FailureShape): string {
  if (failure.stepId || failure.action) {
    const words = (failure.action ?? '').trim().split(/\s+/);
    const negated = words[1] === 'not';
    const kind = `${words[0] ?? ''}${negated ? ' not' : ''}`;
    const selector = words.slice(negated ? 2 : 1).join(' ');
    return ['step', failure.stepId ?? '-', kind, stripVolatile(selector)].join('|');
  }
  const firstLine = (failure.errorMessage ?? '').split('\n', 1)[0] ?? '';
  return ['error', stripVolatile(firstLine)].join('|');
}

/** A failure's fingerprint: 16 hex characters of the signature's SHA-256. */
export function fingerprintOf(failure: FailureShape): string {
  return createHash('sha256').update(failureSignature(failure)).digest('hex').slice(0, 16);
}
