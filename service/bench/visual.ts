/**
 * The comparison `assertScreenshot` makes (stepdeck-visual.ts): decode the 1920×1080 baseline
 * and screenshot PNGs, pixelmatch them. Prints p50/p95 over 40 rounds of two screenshots
 * Chromium took (what the step compares), and of a synthetic page-like picture (text-like
 * stripes, a coloured block) against a copy with one block moved.
 *
 *   node service/bench/visual.ts
 */
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

function measure(
  label: string,
  actual: Buffer,
  withDiff: boolean,
  expected = baseline,
  compare: () => unknown = () => compareWithBaseline(expected, actual, 0.2, withDiff),
): void {
  const times: number[] = [];
  for (let round = 0; round < 45; round++) {
    const start = performance.now();
    compare();
    if (round >= 5) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]?.toFixed(1);
  console.log(`${label}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (${times.length} rounds)`);
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
measure('1920x1080 unchanged (same bytes, as Chromium gives)', same, false);
measure(
  '1920x1080 Chromium screenshot, heading changed, pass/fail only',
  chromiumChanged,
  false,
  chromiumBaseline,
);
measure('  the same with pngjs decoding both (the baseline)', chromiumChanged, false, chromiumBaseline, () =>
  withPngjs(chromiumBaseline, chromiumChanged),
);
measure(
  '1920x1080 Chromium screenshot, heading changed, with the diff image',
  chromiumChanged,
  true,
  chromiumBaseline,
);
measure('1920x1080 synthetic picture (pngjs-encoded, adaptive filters), pass/fail only', moved, false);
measure('1920x1080 synthetic picture, with the diff image (+ encode it)', moved, true);
