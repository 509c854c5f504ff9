/**
 * Screenshot comparison for `assertScreenshot`, copied beside `stepdeck-runtime.ts` into a
 * compiled project that uses it and loaded only then (an exported project lists `pixelmatch`
 * and `pngjs` in its package.json). The baseline is a file the runner wrote into the project
 * before the run; the actual screenshot and the diff are attached to the test, and the outcome
 * is a result annotation the service reads after the run.
 */
import fs from 'node:fs/promises';
import zlib from 'node:zlib';
import type { Page, TestInfo } from '@playwright/test';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { VisualOptions } from './stepdeck-runtime.ts';

/** What the service reads back (the `stepdeck-visual` annotation). */
export interface VisualRecord {
  stepId: string;
  /** `new`: no baseline, the screenshot is a candidate; `changed`: beyond the threshold. */
  status: 'new' | 'passed' | 'changed';
  diffPixels: number;
  ratio: number;
  width: number;
  height: number;
}

export interface Comparison {
  diffPixels: number;
  ratio: number;
  width: number;
  height: number;
  /** The diff image (PNG); null when the sizes differ. */
  diff: Buffer | null;
  sizeMismatch: boolean;
}

const DEFAULT_TIMEOUT_MS = 5_000;
/** Masks are painted in a colour pages rarely use, as Playwright's default. */
const MASK_COLOR = '#FF00FF';

/** A decoded PNG: what `PNG.sync.read` returns. */
export interface Pixels {
  width: number;
  height: number;
  data: Buffer;
}

const decoded = (image: Buffer | Pixels): Pixels => (Buffer.isBuffer(image) ? readPng(image) : image);

/**
 * Decodes a PNG to RGBA pixels. Chromium's screenshots (8-bit RGB or RGBA, not interlaced) take
 * a direct path: inflate, undo each row's filter in place, widen to RGBA. pngjs does the same
 * through general code that costs about twice as long on a 1920×1080 screenshot, and the
 * comparison decodes two of them; any other PNG (a palette, 16 bits, interlaced) goes to pngjs.
 */
export function readPng(png: Buffer): Pixels {
  const header = png.subarray(12, 16).toString('latin1') === 'IHDR' ? png : null;
  const depth = header?.[24];
  const colour = header?.[25];
  const interlaced = header?.[28] !== 0;
  if (!header || depth !== 8 || interlaced || (colour !== 2 && colour !== 6)) return PNG.sync.read(png);
  const { width, height } = pngSize(png);
  const chunks: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = zlib.inflateSync(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  const bpp = colour === 6 ? 4 : 3;
  const stride = width * bpp;
  if (raw.length < (stride + 1) * height) throw new Error('PNG data is shorter than its size says');
  const data = Buffer.allocUnsafe(width * height * 4);
  // A byte of the inflated rows (in range by the length check above).
  const at = (index: number): number => raw[index] as number;
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1) + 1;
    const above = row - (stride + 1);
    const filter = at(row - 1);
    if (filter === 1) {
      for (let i = bpp; i < stride; i++) raw[row + i] = (at(row + i) + at(row + i - bpp)) & 255;
    } else if (filter === 2) {
      if (y > 0) for (let i = 0; i < stride; i++) raw[row + i] = (at(row + i) + at(above + i)) & 255;
    } else if (filter === 3) {
      for (let i = 0; i < stride; i++) {
        const left = i >= bpp ? at(row + i - bpp) : 0;
        const up = y > 0 ? at(above + i) : 0;
        raw[row + i] = (at(row + i) + ((left + up) >> 1)) & 255;
      }
    } else if (filter === 4) {
      for (let i = 0; i < stride; i++) {
        const left = i >= bpp ? at(row + i - bpp) : 0;
        const up = y > 0 ? at(above + i) : 0;
        const upLeft = i >= bpp && y > 0 ? at(above + i - bpp) : 0;
        const guess = left + up - upLeft;
        const toLeft = Math.abs(guess - left);
        const toUp = Math.abs(guess - up);
        const toUpLeft = Math.abs(guess - upLeft);
        const predictor = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
        raw[row + i] = (at(row + i) + predictor) & 255;
      }
    } else if (filter !== 0) throw new Error(`PNG row ${y} has an unknown filter ${filter}`);
    const out = y * width * 4;
    if (bpp === 4) raw.copy(data, out, row, row + stride);
    else
      for (let x = 0, i = row, j = out; x < width; x++, i += 3, j += 4) {
        data[j] = at(i);
        data[j + 1] = at(i + 1);
        data[j + 2] = at(i + 2);
        data[j + 3] = 255;
      }
  }
  return { width, height, data };
}

/** Compares two PNG screenshots pixel by pixel with pixelmatch; the diff is painted red. */
export function compareScreenshots(
  expected: Buffer | Pixels,
  actual: Buffer | Pixels,
  threshold = 0.2,
  withDiff = true,
): Comparison {
  const a = decoded(expected);
  const b = decoded(actual);
  const width = b.width;
  const height = b.height;
  if (a.width !== b.width || a.height !== b.height) {
    const pixels = Math.max(a.width * a.height, width * height);
    return { diffPixels: pixels, ratio: 1, width, height, diff: null, sizeMismatch: true };
  }
  const diff = withDiff ? new PNG({ width, height }) : null;
  const diffPixels = pixelmatch(a.data, b.data, diff?.data, width, height, { threshold });
  const total = width * height;
  return {
    diffPixels,
    ratio: total === 0 ? 0 : diffPixels / total,
    width,
    height,
    // Fastest deflate and no filter search: 3-4× faster than pngjs's defaults on a 1080p diff,
    // and no larger, since a diff is mostly flat grey.
    diff: diff ? PNG.sync.write(diff, { deflateLevel: 1, filterType: 0 }) : null,
    sizeMismatch: false,
  };
}

/** Width and height from a PNG's header (IHDR), without decoding it. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * The comparison a step makes. Chromium encodes the same pixels to the same bytes, so an
 * unchanged screenshot is recognised without decoding (a 1920×1080 decode costs tens of ms);
 * anything else is decoded and compared pixel by pixel.
 */
export function compareWithBaseline(
  baseline: Buffer,
  actual: Buffer,
  threshold?: number,
  withDiff = false,
): Comparison {
  if (baseline.equals(actual)) {
    const { width, height } = pngSize(actual);
    return { diffPixels: 0, ratio: 0, width, height, diff: null, sizeMismatch: false };
  }
  return compareScreenshots(baseline, actual, threshold, withDiff);
}

/** How many pixels may differ: the smaller of the two limits when both are given, else 0. */
export function allowedPixels(options: VisualOptions, width: number, height: number): number {
  const byCount = options.maxDiffPixels;
  const byRatio =
    options.maxDiffPixelRatio === undefined
      ? undefined
      : Math.floor(width * height * options.maxDiffPixelRatio);
  if (byCount !== undefined && byRatio !== undefined) return Math.min(byCount, byRatio);
  return byCount ?? byRatio ?? 0;
}

async function readBaseline(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Screenshots the page or element as Playwright's `toHaveScreenshot` does (animations stopped,
 * caret hidden, masks painted over) until it matches the baseline, or is stable (two identical
 * in a row) and still differs, or the time is up. Without a baseline: until stable, then it is
 * the candidate.
 */
export async function checkScreenshot(
  page: Page,
  testInfo: TestInfo,
  options: VisualOptions,
): Promise<{ record: VisualRecord; failure: string | null }> {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeout;
  const masks = options.mask.map((selector) => page.locator(selector));
  const shoot = async () => {
    const remaining = Math.max(1_000, deadline - Date.now());
    const common = {
      animations: 'disabled' as const,
      caret: 'hide' as const,
      scale: 'css' as const,
      mask: masks,
      maskColor: MASK_COLOR,
      timeout: remaining,
    };
    return options.selector
      ? page.locator(options.selector).screenshot(common)
      : page.screenshot({ ...common, fullPage: options.fullPage === true });
  };
  const baselineBytes = await readBaseline(options.baseline);
  // Decoded only when a screenshot's bytes differ from it.
  let decodedBaseline: Pixels | null = null;
  const baselinePixels = () => {
    decodedBaseline ??= readPng(baselineBytes as Buffer);
    return decodedBaseline;
  };
  let previous: Buffer | null = null;
  let actual = await shoot();
  let comparison: Comparison | null = null;
  for (;;) {
    if (baselineBytes) {
      comparison = baselineBytes.equals(actual)
        ? compareWithBaseline(baselineBytes, actual)
        : compareScreenshots(baselinePixels(), actual, options.threshold, false);
      if (comparison.diffPixels <= allowedPixels(options, comparison.width, comparison.height)) break;
    }
    const stable = previous?.equals(actual) ?? false;
    if (stable || Date.now() >= deadline) break;
    previous = actual;
    actual = await shoot();
  }
  const name = `visual-${options.stepId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const attach = async (suffix: string, body: Buffer) => {
    const file = testInfo.outputPath(`${name}-${suffix}.png`);
    await fs.writeFile(file, body);
    await testInfo.attach(`${name}-${suffix}.png`, { path: file, contentType: 'image/png' });
  };
  if (!baselineBytes || !comparison) {
    await attach('actual', actual);
    const { width, height } = pngSize(actual);
    return {
      record: { stepId: options.stepId, status: 'new', diffPixels: 0, ratio: 0, width, height },
      failure: null,
    };
  }
  const allowed = allowedPixels(options, comparison.width, comparison.height);
  const record: VisualRecord = {
    stepId: options.stepId,
    status: comparison.diffPixels <= allowed ? 'passed' : 'changed',
    diffPixels: comparison.diffPixels,
    ratio: comparison.ratio,
    width: comparison.width,
    height: comparison.height,
  };
  if (record.status === 'passed') return { record, failure: null };
  const baseline = baselinePixels();
  const withDiff = compareScreenshots(baseline, actual, options.threshold, true);
  await attach('actual', actual);
  if (withDiff.diff) await attach('diff', withDiff.diff);
  const size = `${comparison.width}×${comparison.height}`;
  const failure = comparison.sizeMismatch
    ? `the screenshot is ${size}, the baseline ${baseline.width}×${baseline.height} (ratio 1)`
    : `the screenshot differs from the baseline: ${comparison.diffPixels} of ${comparison.width * comparison.height} pixels (ratio ${formatRatio(comparison.ratio)}) differ, ${allowed} allowed; diff: ${name}-diff.png`;
  return { record, failure };
}

/** A ratio with enough digits to tell a few pixels from none: 0.0123, 0.00004. */
export function formatRatio(ratio: number): string {
  if (ratio === 0 || ratio >= 0.01) return ratio.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
  return Number(ratio.toPrecision(2)).toString();
}
