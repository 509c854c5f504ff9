/**
 * The comparison `assertScreenshot` makes (stepdeck-visual.ts): decode the 1920×1080 baseline
 * and screenshot PNGs, pixelmatch them. Prints p50/p95 over 40 rounds of two screenshots
 * Chromium took (what the step compares), and of a synthetic page-like picture (text-like
 * stripes, a coloured block) against a copy with one block moved. Each line also counts the
 * garbage collections during its rounds (major: mark-compact) and their longest pause, since
 * those make the slow tail; the load average is printed first and last (the machine may be shared).
 *
 *   node service/bench/visual.ts
 */
import os from 'node:os';
import {
  constants,
  type NodeGCPerformanceDetail,
  type PerformanceEntry,
  PerformanceObserver,
} from 'node:perf_hooks';
import { chromium } from '@playwright/test';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { resolveChromium } from '../src/runner/browser.ts';
import { compareWithBaseline } from '../src/runner/compiler/runtime/stepdeck-visual.ts';

const width = 1920;
const height = 1080;

function picture(blockLeft: number): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const text = y % 24 < 14 && x % 9 < 6 && (x * 7 + y * 3) % 11 > 3;
      const block = x >= blockLeft && x < blockLeft + 300 && y >= 200 && y < 400;
      png.data[i] = block ? 40 : text ? 30 : 255;
      png.data[i + 1] = block ? 120 : text ? 30 : 255;
      png.data[i + 2] = block ? 220 : text ? 30 : 255;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

const baseline = picture(100);
const same = picture(100);
const moved = picture(140);

/** The baseline: both pictures decoded by pngjs, then the same pixelmatch, without a diff. */
const withPngjs = (expected: Buffer, actual: Buffer) => {
  const a = PNG.sync.read(expected);
  const b = PNG.sync.read(actual);
  pixelmatch(a.data, b.data, undefined, b.width, b.height, { threshold: 0.2 });
};

/** Garbage collections as Node reports them (after the fact, hence the wait in `measure`). */
const collections: { major: boolean; duration: number; at: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as PerformanceEntry & { detail?: NodeGCPerformanceDetail }).detail?.kind;
    collections.push({
      major: kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      duration: entry.duration,
      at: entry.startTime,
    });
  }
}).observe({ entryTypes: ['gc'] });

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');

async function measure(
  label: string,
  actual: Buffer,
  withDiff: boolean,
  expected = baseline,
  compare: () => unknown = () => compareWithBaseline(expected, actual, 0.2, withDiff),
): Promise<void> {
  const times: number[] = [];
  let from = 0;
  for (let round = 0; round < 45; round++) {
    if (round === 5) from = performance.now();
    const start = performance.now();
    compare();
    if (round >= 5) times.push(performance.now() - start);
  }
  const to = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const during = collections.filter((gc) => gc.at >= from && gc.at <= to);
  const major = during.filter((gc) => gc.major).length;
  const longest = Math.max(0, ...during.map((gc) => gc.duration)).toFixed(1);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]?.toFixed(1);
  console.log(
    `${label}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (${times.length} rounds; ${during.length} GCs, ${major} major, longest ${longest} ms)`,
  );
}

/** Two screenshots Chromium takes of a 1920×1080 page of text, buttons and gradients, one heading changed. */
async function chromiumScreenshots(): Promise<[Buffer, Buffer]> {
  const resolved = await resolveChromium();
  if (!resolved.ok) throw new Error(resolved.problem);
  const browser = await chromium.launch({ executablePath: resolved.browser.executablePath });
  try {
    const page = await browser.newPage({ viewport: { width, height } });
    const block =
      '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>' +
      '<button style="background:linear-gradient(#3af,#15c);color:white;padding:8px">Save changes</button>' +
      '<span style="display:inline-block;width:200px;height:60px;background:radial-gradient(#f80,#08f)"></span>';
    await page.setContent(`<h1>Dashboard</h1>${block.repeat(30)}`);
    const before = await page.screenshot();
    await page.evaluate(() => {
      (document.querySelector('h1') as HTMLElement).textContent = 'Dashboard (edited)';
    });
    return [before, await page.screenshot()];
  } finally {
    await browser.close();
  }
}

const [chromiumBaseline, chromiumChanged] = await chromiumScreenshots();
console.log(`load average (1, 5, 15 min): ${load()}`);
await measure('1920x1080 unchanged (same bytes, as Chromium gives)', same, false);
await measure(
  '1920x1080 Chromium screenshot, heading changed, pass/fail only',
  chromiumChanged,
  false,
  chromiumBaseline,
);
await measure(
  '  the same with pngjs decoding both (the baseline)',
  chromiumChanged,
  false,
  chromiumBaseline,
  () => withPngjs(chromiumBaseline, chromiumChanged),
);
await measure(
  '1920x1080 Chromium screenshot, heading changed, with the diff image',
  chromiumChanged,
  true,
  chromiumBaseline,
);
await measure('1920x1080 synthetic picture (pngjs-encoded, adaptive filters), pass/fail only', moved, false);
await measure('1920x1080 synthetic picture, with the diff image (+ encode it)', moved, true);
console.log(`load average (1, 5, 15 min): ${load()}`);
