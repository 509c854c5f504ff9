/**
 * Locator suggestions at a failure (stepdeck-heal.ts), in Debian's Chromium: a page of 2 000
 * elements (a form, a table of rows with buttons and links, test ids, headings, text), a step
 * looking for a button renamed from "Save" to "Save changes". Measures, over 40 rounds after 5
 * of warm-up, p50/p95 of
 * - the whole diagnosis a failing step gets (the failing selector counted, the page read in one
 *   `page.evaluate`, ranked, each proposal counted by Playwright): budget ≤ 200 ms;
 * - reading the page alone, and the ranking alone (pure, in Node);
 * - the two other ways to read a page's roles and names, for comparison: Playwright's
 *   `ariaSnapshot()` and CDP's `Accessibility.getFullAXTree` (neither gives test ids).
 *
 * `cd service && node bench/suggestions.ts [--rounds 40] [--elements 2000]`
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { resolveChromium } from '../src/runner/browser.ts';
import { CHROMIUM_ARGS } from '../src/runner/compiler/constants.ts';
import { diagnoseLocator, readCandidates } from '../src/runner/compiler/runtime/stepdeck-heal.ts';
import { parseSelector, rankCandidates } from '../src/runner/compiler/runtime/stepdeck-suggest.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '40' },
    elements: { type: 'string', default: '2000' },
  },
});
const rounds = Number(values.rounds);
const wanted = Number(values.elements);
const budgetMs = 200;

/** About `wanted` elements: each row is 9 (tr, 3 td, a link, a button, two spans, an em). */
function pageHtml(): string {
  const rows: string[] = [];
  const perRow = 9;
  // The form and the page around the table hold 20 more.
  for (let row = 0; rows.length * perRow + 20 < wanted; row++)
    rows.push(
      `<tr><td><a href="/item/${row}">Item ${row}</a></td><td><span>Owner ${row % 17}</span> <em>due ${row % 28}</em></td>` +
        `<td><button type="button">Edit ${row}</button> <span data-testid="badge-${row}">new</span></td></tr>`,
    );
  const form =
    '<form><h2>Profile</h2><label>Name <input id="name"></label><label>Email <input type="email" id="email"></label>' +
    '<textarea placeholder="About you"></textarea><select><option>One</option><option>Two</option></select>' +
    '<button type="button">Cancel</button><button type="button" data-testid="save">Save changes</button></form>';
  return `<!doctype html><title>Bench</title><main><h1>Items</h1>${form}<table><tbody>${rows.join('')}</tbody></table></main>`;
}

const resolved = await resolveChromium();
if (!resolved.ok) throw new Error(resolved.problem);
const browser = await chromium.launch({
  executablePath: resolved.browser.executablePath,
  args: CHROMIUM_ARGS,
});
const page = await browser.newPage();
await page.setContent(pageHtml());
// Topped up to exactly the wanted size with plain text spans.
await page.evaluate((target) => {
  const filler = document.createElement('div');
  document.body.append(filler);
  for (let n = document.body.querySelectorAll('*').length; n < target; n++) {
    const span = document.createElement('span');
    span.textContent = `note ${n}`;
    filler.append(span);
  }
}, wanted);
const elements = await page.evaluate(() => document.body.querySelectorAll('*').length);
const selector = 'internal:role=button[name="Save"s]';
const cdp = await page.context().newCDPSession(page);
await cdp.send('Performance.enable');
/** The renderer main thread's busy time so far, ms (CDP's TaskDuration). */
const rendererBusyMs = async () => {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0) * 1000;
};

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

/**
 * Wall time p50/p95, and the CPU it took (this process, which runs Playwright's client and
 * server, plus the page's renderer thread): on a shared, loaded machine the wall time mostly
 * measures the wait for a core, the CPU time what the work itself costs.
 */
async function measure(label: string, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < rounds + 5; round++) {
    const busy = await rendererBusyMs();
    const used = process.cpuUsage();
    const start = performance.now();
    await work();
    const wall = performance.now() - start;
    const own = process.cpuUsage(used);
    const renderer = (await rendererBusyMs()) - busy;
    if (round < 5) continue;
    times.push(wall);
    cpu.push((own.user + own.system) / 1000 + renderer);
  }
  console.log(
    `${label}: p50 ${quantile(times, 0.5).toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms; ` +
      `CPU p50 ${quantile(cpu, 0.5).toFixed(1)} ms, p95 ${quantile(cpu, 0.95).toFixed(1)} ms (${times.length} rounds)`,
  );
  return quantile(times, 0.95);
}

console.log(`page: ${elements} elements`);
const error = new Error(`locator.click: Timeout 2000ms exceeded. waiting for ${selector}`);
const first = await diagnoseLocator(page, { stepId: 'bench', selector, resolved: selector }, error);
console.log(
  `best suggestion: ${first?.suggestions[0]?.locator ?? '(none)'} (score ${first?.suggestions[0]?.score ?? '-'}, ${first?.suggestions[0]?.matches ?? 0} match)`,
);
const p95 = await measure('whole diagnosis (count, read, rank, count proposals)', () =>
  diagnoseLocator(page, { stepId: 'bench', selector, resolved: selector }, error),
);
await measure('reading the page (one page.evaluate)', () => readCandidates(page));
const candidates = await readCandidates(page);
await measure('ranking alone (Node)', async () => rankCandidates(parseSelector(selector), candidates));
await measure("for comparison: Playwright's ariaSnapshot of the body", () =>
  page.locator('body').ariaSnapshot(),
);
await measure("for comparison: CDP's Accessibility.getFullAXTree", () =>
  cdp.send('Accessibility.getFullAXTree'),
);
await browser.close();

console.log(
  `target: whole diagnosis p95 ≤ ${budgetMs} ms on ${elements} elements: ${p95 <= budgetMs ? 'met' : 'NOT met'} ` +
    `(load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores)`,
);
