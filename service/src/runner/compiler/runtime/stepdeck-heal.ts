/**
 * Locator suggestions at the moment a step fails, copied beside `stepdeck-runtime.ts` into
 * every compiled project as `stepdeck-heal.ts` (it imports only `@playwright/test` types and
 * `./stepdeck-suggest.ts`). When a step's locator matches nothing, or several elements where
 * one was wanted, the page's elements are read in one `page.evaluate` (role, accessible name,
 * test id, text, label, placeholder, visible, enabled), ranked by `stepdeck-suggest.ts`, and
 * each proposal is counted on the page by Playwright itself, so a suggestion never names a
 * locator that finds nothing.
 */
import type { Page } from '@playwright/test';
import {
  type Candidate,
  locatorFor,
  MAX_SUGGESTIONS,
  parseSelector,
  rankCandidates,
  type Suggestion,
} from './stepdeck-suggest.ts';

type Ranked = ReturnType<typeof rankCandidates>[number];

export type HealMode = 'off' | 'suggest' | 'retry';

/** What the runtime records for a failing locator (the `stepdeck-heal` annotation). */
export interface HealRecord {
  /** The step's node id in the test's tree. */
  stepId: string;
  /** The selector as the step holds it (templates unresolved: no secret value in it). */
  selector: string;
  /** The selector as it ran (templates resolved). */
  resolved: string;
  /** `none`: it matched nothing; `many`: several elements where the action needs one. */
  problem: 'none' | 'many';
  suggestions: Suggestion[];
  /** The suggestion `heal: retry` used and the step then passed with; null otherwise. */
  healed: { selector: string; locator: string } | null;
  /** How long reading and ranking took, ms. */
  ms: number;
}

/** Reading the page may not hold a failing test for longer than this. */
const SUGGEST_BUDGET_MS = 5_000;

/**
 * Runs in the page: every element with a role, a test id, a label or text of its own, in
 * document order. Self-contained (Playwright sends its source to the page).
 */
function collectCandidates(limit: number): string {
  const implicit = (el: Element): string | null => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    switch (tag) {
      case 'a':
        return el.hasAttribute('href') ? 'link' : null;
      case 'button':
        return 'button';
      case 'input':
        if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (type === 'search') return 'searchbox';
        if (type === 'hidden' || type === 'file' || type === 'color' || type === 'password') return null;
        return 'textbox';
      case 'textarea':
        return 'textbox';
      case 'select':
        return el.hasAttribute('multiple') || Number(el.getAttribute('size')) > 1 ? 'listbox' : 'combobox';
      case 'option':
        return 'option';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return 'heading';
      case 'img':
        return el.getAttribute('alt') === '' ? null : 'img';
      case 'li':
        return 'listitem';
      case 'nav':
        return 'navigation';
      case 'dialog':
        return 'dialog';
      case 'summary':
        return 'button';
      default:
        return null;
    }
  };
  const collapse = (text: string | null | undefined) =>
    (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const labelOf = (el: Element): string | null => {
    const id = el.getAttribute('id');
    const byFor = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
    const label = byFor ?? el.closest('label');
    return label ? collapse(label.textContent) || null : null;
  };
  const nameOf = (el: Element, role: string | null, label: string | null): string => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = labelledBy
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
      if (collapse(text)) return collapse(text);
    }
    const aria = collapse(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const type = (el.getAttribute('type') ?? '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type))
        return (
          collapse((el as HTMLInputElement).value) ||
          (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '')
        );
      if (type === 'image') return collapse(el.getAttribute('alt'));
      return label ?? collapse(el.getAttribute('title') ?? el.getAttribute('placeholder'));
    }
    if (tag === 'img') return collapse(el.getAttribute('alt') ?? el.getAttribute('title'));
    if (
      role &&
      ['button', 'link', 'heading', 'option', 'listitem', 'checkbox', 'radio', 'tab', 'menuitem'].includes(
        role,
      )
    )
      return collapse(el.textContent) || collapse(el.getAttribute('title'));
    return collapse(el.getAttribute('title'));
  };
  const ownText = (el: Element): string => {
    let text = '';
    for (let at = 0; at < el.childNodes.length; at++) {
      const node = el.childNodes[at];
      if (node?.nodeType === Node.TEXT_NODE) text += node.textContent ?? '';
    }
    return collapse(text);
  };
  const out: Candidate[] = [];
  const all = document.body ? document.body.querySelectorAll('*') : null;
  for (let index = 0; all && index < all.length; index++) {
    const el = all[index];
    if (!el) continue;
    const tag = el.tagName.toLowerCase();
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    const explicit = (el.getAttribute('role') ?? '').trim().split(/\s+/)[0] || null;
    const role = explicit && explicit !== 'presentation' && explicit !== 'none' ? explicit : implicit(el);
    const testId = el.getAttribute('data-testid');
    const text = ownText(el);
    const label = tag === 'input' || tag === 'textarea' || tag === 'select' ? labelOf(el) : null;
    if (!role && !testId && !text && !label) continue;
    // Chromium's own check (display, visibility, content-visibility), several times cheaper than
    // reading every element's computed style and box.
    const visible =
      typeof el.checkVisibility === 'function'
        ? el.checkVisibility({ visibilityProperty: true })
        : el.getClientRects().length > 0;
    const enabled = !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true';
    out.push({
      index,
      tag,
      role,
      name: nameOf(el, role, label),
      testId,
      text,
      label,
      placeholder: el.getAttribute('placeholder'),
      id: el.getAttribute('id'),
      visible,
      enabled,
    });
    if (out.length >= limit) break;
  }
  // One string: Playwright would otherwise serialise thousands of small objects one by one.
  return JSON.stringify(out);
}

/** At most this many elements are read from a page (a 2 000-element page fits whole). */
const MAX_CANDIDATES = 5_000;

export async function readCandidates(page: Page): Promise<Candidate[]> {
  return JSON.parse(await page.evaluate(collectCandidates, MAX_CANDIDATES)) as Candidate[];
}

/**
 * `none`/`many` when the failure is the locator's, null when it finds its one element now (the
 * step failed for another reason, or the element came too late: proposing others would mislead).
 */
async function locatorProblem(page: Page, selector: string, error: unknown): Promise<'none' | 'many' | null> {
  const message = error instanceof Error ? error.message : String(error);
  const count = await page.locator(selector).count();
  if (count === 0) return 'none';
  return count > 1 && /strict mode violation/i.test(message) ? 'many' : null;
}

const withinBudget = <T>(work: Promise<T>): Promise<T | null> =>
  Promise.race([
    work,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), SUGGEST_BUDGET_MS).unref?.()),
  ]);

/** How many elements a proposal finds now; "Save" also finds "Save changes": then the exact name. */
async function counted(page: Page, entry: Ranked): Promise<Suggestion> {
  const matches = await page.locator(entry.selector).count();
  const base = { selector: entry.selector, locator: entry.locator, score: entry.score, matches };
  if (matches <= 1) return base;
  const exact = locatorFor(entry.candidate, true);
  if (!exact) return base;
  const exactMatches = await page.locator(exact.selector).count();
  return exactMatches > 0 && exactMatches < matches ? { ...base, ...exact, matches: exactMatches } : base;
}

/**
 * The page's closest elements, best first, each counted on the page by Playwright (all at once:
 * the counts overlap their round trips). The page's structure and Playwright's may disagree (a
 * name computed differently): a proposal Playwright finds nothing for is left out, and the next
 * ones are counted in its place.
 */
export async function suggestLocators(
  page: Page,
  selector: string,
  candidates?: Candidate[],
): Promise<Suggestion[]> {
  const ranked = rankCandidates(parseSelector(selector), candidates ?? (await readCandidates(page)), {
    limit: MAX_SUGGESTIONS * 3,
    exclude: selector,
  });
  const out: Suggestion[] = [];
  for (let from = 0; from < ranked.length && out.length < MAX_SUGGESTIONS; ) {
    const batch = ranked.slice(from, from + MAX_SUGGESTIONS - out.length);
    from += batch.length;
    for (const suggestion of await Promise.all(batch.map((entry) => counted(page, entry))))
      if (suggestion.matches > 0 && !out.some((known) => known.selector === suggestion.selector))
        out.push(suggestion);
  }
  return out;
}

/**
 * The heal record of a failed step, or null when its failure is not its locator's (the element
 * was found) or the page could not be read (closed, navigating, over the time budget).
 */
export async function diagnoseLocator(
  page: Page,
  step: { stepId: string; selector: string; resolved: string },
  error: unknown,
): Promise<HealRecord | null> {
  const started = performance.now();
  try {
    return await withinBudget(
      (async () => {
        if (page.isClosed()) return null;
        // Read while the failing selector is counted: both wait on the same page.
        const reading = readCandidates(page).catch(() => null);
        const problem = await locatorProblem(page, step.resolved, error);
        const candidates = await reading;
        if (!problem || !candidates) return null;
        const suggestions = await suggestLocators(page, step.resolved, candidates);
        return {
          ...step,
          problem,
          suggestions,
          healed: null,
          ms: Math.round(performance.now() - started),
        } as HealRecord;
      })(),
    );
  } catch {
    return null;
  }
}
