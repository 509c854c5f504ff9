/**
 * Web Vitals of the current page for `measureVitals` / `assertVitals`, copied into the compiled
 * project beside `stepdeck-runtime.ts` (it imports only `@playwright/test`). The `web-vitals`
 * package is not a dependency of the runner, so the observers are written here: a script added
 * to the browser context before the test's first page registers PerformanceObservers (buffered)
 * for paints, the largest contentful paint, layout shifts, event timing and long tasks; a step
 * reads what they saw, once the page has loaded and its network is quiet.
 */
import type { Page, TestInfo } from '@playwright/test';

/** Result annotation with each measurement (JSON), read by the service into the test result. */
export const VITALS_ANNOTATION = 'stepdeck-vitals';

/** One measurement of the page: null where the page gave no value (no interaction: no INP). */
export interface VitalsRecord {
  stepId: string;
  label: string | null;
  url: string;
  lcpMs: number | null;
  cls: number;
  inpMs: number | null;
  tbtMs: number;
  fcpMs: number | null;
  ttfbMs: number | null;
  domContentLoadedMs: number | null;
  loadMs: number | null;
}

export type VitalLimits = Partial<Record<'lcpMs' | 'cls' | 'inpMs' | 'tbtMs' | 'fcpMs' | 'ttfbMs', number>>;

/** How long a measurement waits for the page's network to settle before reading. */
const SETTLE_MS = 10_000;

/**
 * Runs in the page before its own scripts. CLS is the largest session window of shifts without
 * recent input (gaps under 1 s, windows up to 5 s); INP the slowest interaction (one skipped per
 * 50, as the metric's 98th percentile); TBT the long tasks' time over 50 ms after the first paint.
 */
function observeVitals(): void {
  const state = {
    lcp: null as number | null,
    fcp: null as number | null,
    cls: 0,
    sessionValue: 0,
    sessionFirst: 0,
    sessionLast: 0,
    interactions: new Map<number, number>(),
    longTasks: [] as Array<{ start: number; duration: number }>,
    flushes: [] as Array<() => void>,
  };
  (window as unknown as { __stepdeckVitals: typeof state }).__stepdeckVitals = state;
  const observe = (type: string, onEntry: (entry: PerformanceEntry) => void, extra: object = {}) => {
    try {
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) onEntry(entry);
      });
      observer.observe({ type, buffered: true, ...extra } as PerformanceObserverInit);
      // Entries queued but not yet delivered (the browser delivers them in an idle task, late
      // under load): a measurement takes them at once rather than reading a stale state.
      state.flushes.push(() => {
        for (const entry of observer.takeRecords()) onEntry(entry);
      });
    } catch {
      // An entry type this browser does not support leaves its metric empty.
    }
  };
  observe('paint', (entry) => {
    if (entry.name === 'first-contentful-paint') state.fcp = entry.startTime;
  });
  observe('largest-contentful-paint', (entry) => {
    state.lcp = entry.startTime;
  });
  observe('layout-shift', (entry) => {
    const shift = entry as PerformanceEntry & { value: number; hadRecentInput: boolean };
    if (shift.hadRecentInput) return;
    const continues =
      state.sessionValue > 0 &&
      shift.startTime - state.sessionLast < 1000 &&
      shift.startTime - state.sessionFirst < 5000;
    if (continues) state.sessionValue += shift.value;
    else {
      state.sessionValue = shift.value;
      state.sessionFirst = shift.startTime;
    }
    state.sessionLast = shift.startTime;
    state.cls = Math.max(state.cls, state.sessionValue);
  });
  observe(
    'event',
    (entry) => {
      const event = entry as PerformanceEntry & { interactionId?: number };
      if (!event.interactionId) return;
      const known = state.interactions.get(event.interactionId) ?? 0;
      state.interactions.set(event.interactionId, Math.max(known, entry.duration));
    },
    { durationThreshold: 16 },
  );
  observe('first-input', (entry) => {
    const first = entry as PerformanceEntry & { interactionId?: number };
    const id = first.interactionId || -1;
    state.interactions.set(id, Math.max(state.interactions.get(id) ?? 0, entry.duration));
  });
  observe('longtask', (entry) => {
    state.longTasks.push({ start: entry.startTime, duration: entry.duration });
  });
}

/** Registers the observers on every page of the test's browser context (call before navigating). */
export async function installVitals(page: Page): Promise<void> {
  await page.context().addInitScript(observeVitals);
}

/** Reads the page's vitals once it has loaded and its network has been idle (at most 10 s). */
async function readVitals(page: Page, stepId: string, label: string | null): Promise<VitalsRecord> {
  await page.waitForLoadState('load');
  await page.waitForLoadState('networkidle', { timeout: SETTLE_MS }).catch(() => {
    // A page that keeps polling is measured as it is after the wait.
  });
  const values = await page.evaluate(async () => {
    const state = (
      window as unknown as {
        __stepdeckVitals?: {
          lcp: number | null;
          fcp: number | null;
          cls: number;
          interactions: Map<number, number>;
          longTasks: Array<{ start: number; duration: number }>;
          flushes: Array<() => void>;
        };
      }
    ).__stepdeckVitals;
    // An interaction's event timing entry exists only once the frame after it has painted: two
    // animation frames (or 500 ms, for a page the browser does not paint) make sure it has.
    const frame = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        requestAnimationFrame(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    await frame();
    await frame();
    for (const flush of state?.flushes ?? []) flush();
    const navigation = performance.getEntriesByType('navigation')[0] as
      | (PerformanceNavigationTiming & { activationStart?: number })
      | undefined;
    const durations = [...(state?.interactions.values() ?? [])].sort((a, b) => b - a);
    const skip = Math.min(durations.length - 1, Math.floor(durations.length / 50));
    const fcp = state?.fcp ?? null;
    const tbt = (state?.longTasks ?? [])
      .filter((task) => fcp === null || task.start >= fcp)
      .reduce((sum, task) => sum + Math.max(0, task.duration - 50), 0);
    const at = (value: number | undefined) => (value && value > 0 ? value : null);
    return {
      installed: state !== undefined,
      lcpMs: state?.lcp ?? null,
      cls: state?.cls ?? 0,
      inpMs: durations.length > 0 ? (durations[skip] ?? null) : null,
      tbtMs: tbt,
      fcpMs: fcp,
      ttfbMs: navigation ? Math.max(0, navigation.responseStart - (navigation.activationStart ?? 0)) : null,
      domContentLoadedMs: at(navigation?.domContentLoadedEventEnd),
      loadMs: at(navigation?.loadEventEnd),
    };
  });
  if (!values.installed)
    throw new Error('measureVitals: the page was opened before the vitals observers were installed');
  const round = (value: number | null) => (value === null ? null : Math.round(value));
  return {
    stepId,
    label,
    url: page.url(),
    lcpMs: round(values.lcpMs),
    cls: Math.round(values.cls * 10_000) / 10_000,
    inpMs: round(values.inpMs),
    tbtMs: Math.round(values.tbtMs),
    fcpMs: round(values.fcpMs),
    ttfbMs: round(values.ttfbMs),
    domContentLoadedMs: round(values.domContentLoadedMs),
    loadMs: round(values.loadMs),
  };
}

function record(testInfo: TestInfo, vitals: VitalsRecord): void {
  testInfo.annotations.push({ type: VITALS_ANNOTATION, description: JSON.stringify(vitals) });
}

/** `measureVitals`: the page's vitals into the test result. */
export async function measureVitals(
  page: Page,
  testInfo: TestInfo,
  options: { stepId: string; label?: string },
): Promise<VitalsRecord> {
  const vitals = await readVitals(page, options.stepId, options.label ?? null);
  record(testInfo, vitals);
  return vitals;
}

const NAMES: Record<keyof VitalLimits, string> = {
  lcpMs: 'LCP',
  cls: 'CLS',
  inpMs: 'INP',
  tbtMs: 'TBT',
  fcpMs: 'FCP',
  ttfbMs: 'TTFB',
};

/**
 * `assertVitals`: measures (and records) the page's vitals, then fails naming every metric over
 * its limit, with the others said ok: `LCP 3120 ms is over the 2500 ms limit; CLS 0.02 ok`. A
 * limited metric the page gave no value for fails too (INP without any interaction).
 */
export async function assertVitals(
  page: Page,
  testInfo: TestInfo,
  options: { stepId: string; limits: VitalLimits },
): Promise<void> {
  const vitals = await readVitals(page, options.stepId, null);
  record(testInfo, vitals);
  const show = (key: keyof VitalLimits, value: number) => (key === 'cls' ? `${value}` : `${value} ms`);
  const parts: string[] = [];
  let failed = false;
  for (const key of Object.keys(NAMES) as Array<keyof VitalLimits>) {
    const limit = options.limits[key];
    if (limit === undefined) continue;
    const value = vitals[key];
    if (value === null) {
      failed = true;
      parts.push(
        key === 'inpMs'
          ? 'INP not measured: no interaction on the page (limit tbtMs instead)'
          : `${NAMES[key]} not measured on this page`,
      );
    } else if (value > limit) {
      failed = true;
      parts.push(`${NAMES[key]} ${show(key, value)} is over the ${show(key, limit)} limit`);
    } else parts.push(`${NAMES[key]} ${show(key, value)} ok`);
  }
  if (failed) throw new Error(parts.join('; '));
}
