/**
 * What a compiled test's result carries for the Stepdeck service's report beyond pass or fail,
 * for `stepdeck-runtime.ts`, copied beside it into every compiled project: the annotations the
 * service reads (the service's `compiler/constants.ts` names the same types), and the
 * screenshot a passing test does not need. It imports only `@playwright/test`.
 */
import type { BrowserContext, TestInfo } from '@playwright/test';

/** Result annotation with a failed assertion's expected and received values (JSON text). */
export const EXPECTATION_ANNOTATION = 'stepdeck-expectation';
/** Result annotation with each `assertScreenshot`'s outcome (JSON), read by the service. */
export const VISUAL_ANNOTATION = 'stepdeck-visual';
/** A value longer than this is cut: the annotation is for reading, not for a whole page. */
const EXPECTATION_MAX_CHARS = 2_000;

/**
 * An assertion's expected and received values (Playwright's `matcherResult`, which its
 * reports drop) as a result annotation, so a report can show them without parsing messages;
 * undefined for an error that is no assertion's.
 */
export function expectationAnnotation(error: unknown): { type: string; description: string } | undefined {
  const result = (error as { matcherResult?: { expected?: unknown; actual?: unknown } } | null)
    ?.matcherResult;
  if (!result || typeof result !== 'object') return undefined;
  const show = (value: unknown): string | null => {
    if (value === undefined || typeof value === 'function') return null;
    let text: string | undefined;
    try {
      // Patterns (regex values, `assertTexts` without `exact`) read as written: `/Buy milk/`.
      text = JSON.stringify(value, (_key, item) => (item instanceof RegExp ? String(item) : item));
    } catch {
      text = String(value);
    }
    if (text === undefined) return null;
    return text.length > EXPECTATION_MAX_CHARS ? `${text.slice(0, EXPECTATION_MAX_CHARS)}…` : text;
  };
  const expected = show(result.expected);
  const received = show(result.actual);
  if (expected === null && received === null) return undefined;
  return { type: EXPECTATION_ANNOTATION, description: JSON.stringify({ expected, received }) };
}

/**
 * With `screenshot: 'only-on-failure'`, Playwright screenshots every page as its context
 * closes, in case the test fails after its body, and throws the picture away when it passed.
 * Nothing after a compiled test's body can fail it, so for a passing test that picture is
 * wasted: about 100 ms of CPU at the default 1920×1080 viewport, a quarter of what a short
 * test costs (docs/orchestrated-runs.md). Marking the pages as captured, as Playwright marks
 * them itself after a capture, skips it. The mark is Playwright's own per-test symbol, which
 * is not public: should it change, the picture is simply taken again. Called only once the
 * test has passed (`Stepdeck.finish()` throws first otherwise), so a failing test keeps the
 * screenshot Playwright takes after its body.
 */
export function skipDiscardedScreenshots(testInfo: TestInfo, context: BrowserContext | undefined): void {
  const setting = testInfo.project.use.screenshot;
  const mode = typeof setting === 'object' ? setting.mode : setting;
  const captured = (testInfo as unknown as { _uniqueSymbol?: unknown })._uniqueSymbol;
  // A soft assertion that failed has failed the test without throwing.
  if (mode !== 'only-on-failure' || typeof captured !== 'symbol' || testInfo.errors.length > 0) return;
  // The test's own context holds all its pages (popups included): compiled tests open no other.
  for (const page of context?.pages() ?? []) (page as unknown as Record<symbol, boolean>)[captured] = true;
}
