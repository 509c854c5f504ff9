/**
 * The comparison `assertScreenshot` makes (stepdeck-visual.ts): decode the 1920×1080 baseline
 * and screenshot PNGs, pixelmatch them. Prints p50/p95 over 40 rounds of a page-like picture
 * (text-like stripes, a coloured block) against a copy with one block moved.
 *
 *   node service/bench/visual.ts
 */
import { PNG } from 'pngjs';
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

function measure(label: string, actual: Buffer, withDiff: boolean): void {
  const times: number[] = [];
  for (let round = 0; round < 45; round++) {
    const start = performance.now();
    compareWithBaseline(baseline, actual, 0.2, withDiff);
    if (round >= 5) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]?.toFixed(1);
  console.log(`${label}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (${times.length} rounds)`);
}

measure('1920x1080 unchanged (same bytes, as Chromium gives)', same, false);
measure('1920x1080 changed, pass/fail only (decode both + pixelmatch)', moved, false);
measure('1920x1080 changed, with the diff image (+ encode it)', moved, true);
