/**
 * Locator suggestions, the pure part: what a failing selector asked for, how close each element
 * of the page is to it, and the locator that would find that element. Copied beside
 * `stepdeck-runtime.ts` into every compiled project as `stepdeck-suggest.ts`; it imports
 * nothing, so it also runs in the service's unit tests and benchmark. Deterministic: the same
 * selector and candidates give the same suggestions in the same order (no AI service, no
 * randomness; ties go to the earlier element in the document).
 */

/** One element of the page as `stepdeck-heal.ts` reads it (in document order). */
export interface Candidate {
  /** Position in the document (tie-break). */
  index: number;
  tag: string;
  /** Explicit or implicit ARIA role; null when it has none worth naming. */
  role: string | null;
  /** Accessible name (aria-labelledby, aria-label, label, alt, value, text, title). */
  name: string;
  testId: string | null;
  /** The element's own visible text, collapsed. */
  text: string;
  label: string | null;
  placeholder: string | null;
  id: string | null;
  visible: boolean;
  enabled: boolean;
}

/** What a selector was looking for, as far as its syntax says. */
export interface SelectorTarget {
  role: string | null;
  name: string | null;
  /** The name or text had to match exactly (`"…"s`, `exact: true`). */
  exact: boolean;
  testId: string | null;
  text: string | null;
  label: string | null;
  placeholder: string | null;
  /** Words of ids, classes and attribute values (`#save-button`): a weak hint. */
  hint: string | null;
}

/** A proposed element: the selector to store in the step and the same as Playwright code. */
export interface Suggestion {
  /** In the product's selector syntax (what `page.locator()` takes and steps store). */
  selector: string;
  /** The same locator as Playwright's JavaScript writes it: `getByRole('button', { name: 'Save' })`. */
  locator: string;
  /** 0…1: how close the element is to what the selector asked for. */
  score: number;
  /** How many elements the selector matches now (filled in by the runtime). */
  matches: number;
}

/** At most this many suggestions are kept. */
export const MAX_SUGGESTIONS = 5;
/** Below this score an element is not proposed at all. */
export const MIN_SUGGESTION_SCORE = 0.35;
/** `heal: retry` uses the best suggestion only from this score up, ... */
export const RETRY_MIN_SCORE = 0.7;
/** ... and only when it leads the next one by this much (two equally close elements: no guess). */
export const RETRY_MIN_LEAD = 0.05;

const MAX_TEXT = 80;

// --- Reading a selector -------------------------------------------------------------------------

const QUOTED = /^"((?:[^"\\]|\\.)*)"([is]?)$/;

function unquote(value: string): { text: string; exact: boolean } {
  const trimmed = value.trim();
  const match = trimmed.match(QUOTED);
  if (!match) return { text: trimmed.replace(/^'|'$/g, ''), exact: false };
  let text = match[1] ?? '';
  try {
    text = JSON.parse(`"${match[1] ?? ''}"`) as string;
  } catch {
    // A quote escaped the way JSON does not: keep it as written.
  }
  return { text, exact: match[2] === 's' };
}

const IMPLICIT_TAG_ROLES: Record<string, string> = {
  a: 'link',
  button: 'button',
  select: 'combobox',
  textarea: 'textbox',
  input: 'textbox',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  img: 'img',
};

const emptyTarget = (): SelectorTarget => ({
  role: null,
  name: null,
  exact: false,
  testId: null,
  text: null,
  label: null,
  placeholder: null,
  hint: null,
});

/**
 * What a Playwright selector looks for: role and name, test id, text, label or placeholder
 * (the engines `getBy*` resolve to, and their public forms), else the tag and the words of its
 * ids, classes and quoted values. A chain (`a >> b`) is judged by its last part, the element
 * the step acts on.
 */
export function parseSelector(selector: string): SelectorTarget {
  const target = emptyTarget();
  const parts = selector.split(/\s*>>\s*/).filter((part) => !/^(nth=|internal:control=)/.test(part));
  const part = (parts.at(-1) ?? selector).trim();
  const role = part.match(/^(?:internal:)?role=([a-zA-Z-]+)(.*)$/);
  if (role) {
    target.role = (role[1] ?? '').toLowerCase();
    const name = (role[2] ?? '').match(/\[name\s*=\s*("(?:[^"\\]|\\.)*"[is]?)\]/);
    if (name?.[1]) {
      const { text, exact } = unquote(name[1]);
      target.name = text;
      target.exact = exact;
    }
    return target;
  }
  const testId = part.match(/^internal:testid=\[[\w-]+=("(?:[^"\\]|\\.)*"[is]?)\]$/);
  const testIdCss = part.match(/\[data-test-?id\s*=\s*["']?([^"'\]]+)["']?\]/i);
  if (testId?.[1] || testIdCss?.[1]) {
    target.testId = testId?.[1] ? unquote(testId[1]).text : (testIdCss?.[1] ?? null);
    return target;
  }
  const label = part.match(/^internal:label=(.+)$/);
  if (label?.[1]) {
    ({ text: target.label, exact: target.exact } = unquote(label[1]));
    return target;
  }
  const placeholder = part.match(/^internal:attr=\[placeholder=("(?:[^"\\]|\\.)*"[is]?)\]$/);
  if (placeholder?.[1]) {
    ({ text: target.placeholder, exact: target.exact } = unquote(placeholder[1]));
    return target;
  }
  const text = part.match(/^(?:internal:)?text=(.+)$/);
  if (text?.[1]) {
    ({ text: target.text, exact: target.exact } = unquote(text[1]));
    return target;
  }
  // CSS or XPath: the tag's role, `:has-text("…")`/`:text("…")` as text, the rest as a hint.
  const tag = part.match(/^([a-zA-Z][a-zA-Z0-9]*)(?![\w-]*\()/)?.[1]?.toLowerCase();
  if (tag && IMPLICIT_TAG_ROLES[tag]) target.role = IMPLICIT_TAG_ROLES[tag] ?? null;
  const hasText = part.match(/:(?:has-)?text(?:-is)?\(\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\)/);
  if (hasText?.[1]) target.text = unquote(hasText[1].replace(/^'(.*)'$/, '"$1"')).text;
  const words = [...part.matchAll(/[#.]([\w-]+)|=\s*["']([^"']+)["']/g)]
    .map((match) => match[1] ?? match[2] ?? '')
    .join(' ');
  target.hint = words.trim() === '' ? null : words;
  return target;
}

// --- Similarity -----------------------------------------------------------------------------

/** Lower case, accents off, camelCase and punctuation split into words. */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * 0…1, how alike two names are: the best of token overlap (Dice), one containing all the
 * words of the other (a renamed "Save" → "Save changes"), and edit distance (a typo, "Sign-in"
 * → "Sign in" after normalising).
 */
export function similarity(a: string, b: string): number {
  const left = normalize(a).slice(0, MAX_TEXT);
  const right = normalize(b).slice(0, MAX_TEXT);
  if (left === '' || right === '') return 0;
  if (left === right) return 1;
  const leftWords = new Set(left.split(' '));
  const rightWords = new Set(right.split(' '));
  let shared = 0;
  for (const word of leftWords) if (rightWords.has(word)) shared++;
  const dice = (2 * shared) / (leftWords.size + rightWords.size);
  const contained = shared > 0 && (shared === leftWords.size || shared === rightWords.size) ? 0.85 : 0;
  const edit = 1 - levenshtein(left, right) / Math.max(left.length, right.length);
  return Math.max(dice, contained, edit);
}

// --- Ranking --------------------------------------------------------------------------------

/** 0…1: how close one element is to what the selector asked for. */
export function scoreCandidate(target: SelectorTarget, candidate: Candidate): number {
  let score = 0;
  if (target.testId !== null) {
    score =
      candidate.testId === target.testId
        ? 1
        : candidate.testId
          ? 0.8 * similarity(target.testId, candidate.testId)
          : 0;
    // A test id renamed with its label: the text still says what it was.
    score = Math.max(score, 0.6 * similarity(target.testId, candidate.name || candidate.text));
  }
  if (target.role !== null) {
    const sameRole = candidate.role === target.role;
    const byName =
      target.name !== null
        ? (sameRole ? 0.4 : 0) + 0.6 * similarity(target.name, candidate.name)
        : sameRole
          ? 0.6
          : 0;
    score = Math.max(score, byName);
  }
  const wanted = target.text ?? target.label ?? target.placeholder;
  if (wanted !== null) {
    const own =
      target.label !== null ? candidate.label : target.placeholder !== null ? candidate.placeholder : null;
    score = Math.max(
      score,
      0.9 * similarity(wanted, own ?? ''),
      0.8 * similarity(wanted, candidate.text),
      0.8 * similarity(wanted, candidate.name),
    );
  }
  if (target.hint !== null) {
    const about = [candidate.id, candidate.testId, candidate.name].filter(Boolean).join(' ');
    const sameRole = target.role !== null && candidate.role === target.role;
    score = Math.max(score, (sameRole ? 0.2 : 0) + 0.6 * similarity(target.hint, about));
  }
  // Visible and enabled elements first: a hidden one is rarely what the step wants.
  if (!candidate.visible) score *= 0.5;
  else if (!candidate.enabled) score *= 0.9;
  return Math.round(score * 1000) / 1000;
}

const quoteJs = (value: string) =>
  `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
/** Playwright's own escaping of an attribute value in its internal selectors. */
const quoteAttr = (value: string, exact: boolean) =>
  `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"${exact ? 's' : 'i'}`;
const quoteText = (value: string, exact: boolean) => `${JSON.stringify(value)}${exact ? 's' : 'i'}`;

/**
 * Every locator that finds a candidate, in the order Playwright's codegen prefers them: test
 * id, then role and name, then label, placeholder, text, and last the element's id. The element
 * picker offers them all; a suggestion takes the first ({@link locatorFor}).
 */
export function locatorsFor(
  candidate: Candidate,
  exact = false,
): Array<Omit<Suggestion, 'score' | 'matches'>> {
  const exactOption = exact ? ', exact: true' : '';
  const out: Array<Omit<Suggestion, 'score' | 'matches'>> = [];
  if (candidate.testId)
    out.push({
      selector: `internal:testid=[data-testid=${quoteAttr(candidate.testId, true)}]`,
      locator: `getByTestId(${quoteJs(candidate.testId)})`,
    });
  const name = candidate.name.slice(0, MAX_TEXT * 2);
  if (candidate.role && name)
    out.push({
      selector: `internal:role=${candidate.role}[name=${quoteAttr(name, exact)}]`,
      locator: `getByRole(${quoteJs(candidate.role)}, { name: ${quoteJs(name)}${exactOption} })`,
    });
  if (candidate.label)
    out.push({
      selector: `internal:label=${quoteText(candidate.label, exact)}`,
      locator: `getByLabel(${quoteJs(candidate.label)}${exact ? ', { exact: true }' : ''})`,
    });
  if (candidate.placeholder)
    out.push({
      selector: `internal:attr=[placeholder=${quoteAttr(candidate.placeholder, exact)}]`,
      locator: `getByPlaceholder(${quoteJs(candidate.placeholder)}${exact ? ', { exact: true }' : ''})`,
    });
  if (candidate.text)
    out.push({
      selector: `internal:text=${quoteText(candidate.text.slice(0, MAX_TEXT * 2), exact)}`,
      locator: `getByText(${quoteJs(candidate.text.slice(0, MAX_TEXT * 2))}${exact ? ', { exact: true }' : ''})`,
    });
  if (candidate.id && /^[A-Za-z][\w-]*$/.test(candidate.id))
    out.push({ selector: `#${candidate.id}`, locator: `locator(${quoteJs(`#${candidate.id}`)})` });
  return out;
}

/** The preferred locator of a candidate ({@link locatorsFor}'s first), or null when none finds it. */
export function locatorFor(
  candidate: Candidate,
  exact = false,
): Omit<Suggestion, 'score' | 'matches'> | null {
  return locatorsFor(candidate, exact)[0] ?? null;
}

/**
 * The locators of one element among the page's, exact where a looser name would also find
 * another element of its role (as {@link rankCandidates} proposes them).
 */
export function locatorsAmong(
  candidate: Candidate,
  candidates: Candidate[],
): Array<Omit<Suggestion, 'score' | 'matches'>> {
  return locatorsFor(candidate, nameIsPartOfAnother(candidate, candidates));
}

/**
 * Whether a case-insensitive name match would also find another element of the same role
 * ("Save" in "Save changes"): such a name is proposed exact, as codegen writes it.
 */
function nameIsPartOfAnother(candidate: Candidate, candidates: Candidate[]): boolean {
  if (candidate.testId || !candidate.role || !candidate.name) return false;
  const name = candidate.name.toLowerCase();
  return candidates.some(
    (other) =>
      other !== candidate && other.role === candidate.role && other.name.toLowerCase().includes(name),
  );
}

/**
 * The closest candidates, best first: at most `limit`, each at least {@link MIN_SUGGESTION_SCORE},
 * one per distinct locator (the first element in the document keeps it). `matches` is 0 here:
 * the runtime counts them on the page.
 */
export function rankCandidates(
  target: SelectorTarget,
  candidates: Candidate[],
  options: { limit?: number; exclude?: string } = {},
): Array<Suggestion & { candidate: Candidate }> {
  const limit = options.limit ?? MAX_SUGGESTIONS;
  const scored: Array<{ candidate: Candidate; score: number }> = [];
  for (const candidate of candidates) {
    const score = scoreCandidate(target, candidate);
    if (score >= MIN_SUGGESTION_SCORE) scored.push({ candidate, score });
  }
  scored.sort((a, b) => b.score - a.score || a.candidate.index - b.candidate.index);
  const seen = new Set<string>(options.exclude === undefined ? [] : [options.exclude]);
  const out: Array<Suggestion & { candidate: Candidate }> = [];
  for (const { candidate, score } of scored) {
    const located = locatorFor(candidate, nameIsPartOfAnother(candidate, candidates));
    if (!located || seen.has(located.selector)) continue;
    seen.add(located.selector);
    out.push({ ...located, score, matches: 0, candidate });
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * The suggestion `heal: retry` may use: the best one, when it scores {@link RETRY_MIN_SCORE} or
 * more, leads the next by {@link RETRY_MIN_LEAD} and matches exactly one element now.
 */
export function retryChoice(suggestions: Suggestion[]): Suggestion | null {
  const [best, next] = suggestions;
  if (!best || best.score < RETRY_MIN_SCORE || best.matches !== 1) return null;
  if (next && best.score - next.score < RETRY_MIN_LEAD) return null;
  return best;
}

/** A selector as Playwright code (`getByRole('button', { name: 'Save', exact: true })`) for messages. */
export function describeSelector(selector: string): string {
  const target = parseSelector(selector);
  const exact = target.exact ? ', exact: true' : '';
  if (selector.includes('>>')) return `locator(${quoteJs(selector)})`;
  if (/^(?:internal:)?role=/.test(selector) && target.role)
    return target.name !== null
      ? `getByRole(${quoteJs(target.role)}, { name: ${quoteJs(target.name)}${exact} })`
      : `getByRole(${quoteJs(target.role)})`;
  if (/^internal:testid=/.test(selector) && target.testId) return `getByTestId(${quoteJs(target.testId)})`;
  const options = target.exact ? ', { exact: true }' : '';
  if (/^internal:label=/.test(selector) && target.label !== null)
    return `getByLabel(${quoteJs(target.label)}${options})`;
  if (/^internal:attr=\[placeholder=/.test(selector) && target.placeholder !== null)
    return `getByPlaceholder(${quoteJs(target.placeholder)}${options})`;
  if (/^internal:text=/.test(selector) && target.text !== null)
    return `getByText(${quoteJs(target.text)}${options})`;
  return `locator(${quoteJs(selector)})`;
}
