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

/** Spare buffers stop being kept beyond this many bytes (a full-page screenshot can be far larger). */
const SPARE_BYTES = 64 * 1024 * 1024;
const spare: Buffer[] = [];
let spareBytes = 0;

/**
 * A buffer of `size` bytes whose content is garbage: a spare one of that exact size if there is
 * one, else a new one. Each comparison needs two 8 MB pixel buffers for a 1920×1080 screenshot
 * (and a third for the diff); allocated afresh each time, they made V8 run a full collection
 * about every other comparison, which set the slow tail (`service/bench/visual.ts` counts them).
 * A buffer is owned by whoever took it until that owner gives it back with `releasePixels` after
 * its last use, so nothing else can write to it meanwhile. The pool stays small because
 * comparisons in one test process are sequential (a Playwright worker runs one test at a time
 * and a test its steps in order): it only ever holds the few buffers one comparison needs.
 */
function takeBuffer(size: number): Buffer {
  // The most recently given back first: its memory is the likeliest still in the CPU's caches.
  // (A loop, not findLastIndex: an exported project compiles against ES2022.)
  let index = spare.length - 1;
  while (index >= 0 && spare[index]?.length !== size) index--;
  if (index === -1) return Buffer.allocUnsafe(size);
  const [buffer] = spare.splice(index, 1);
  spareBytes -= size;
  return buffer as Buffer;
}

/**
 * Hands pixels back for reuse once nothing reads them any more (those from `readPng` and no
 * others: their buffer is overwritten by a later comparison). Forgetting to is harmless.
 */
export function releasePixels(pixels: Pixels): void {
  giveBuffer(pixels.data);
}

function giveBuffer(data: Buffer): void {
  if (data.length === 0 || data.length > SPARE_BYTES || spare.includes(data)) return;
  spare.push(data);
  spareBytes += data.length;
  // The oldest spares go first: sizes no longer in use (another viewport, an element) age out.
  while (spareBytes > SPARE_BYTES) spareBytes -= (spare.shift() as Buffer).length;
}

/** A byte of a buffer, for indices the caller has checked are in range. */
const byte = (bytes: Buffer, index: number): number => bytes[index] as number;

/**
 * Undoes the filter of the row starting at `row` (its filter byte just before), in place. Above
 * the first row, bytes count as zero: there Paeth is Sub, Average halves the left byte, Up is none.
 */
function unfilterRow(raw: Buffer, row: number, stride: number, bpp: number, first: boolean): void {
  const filter = byte(raw, row - 1);
  const above = row - stride - 1;
  const end = row + stride;
  if (filter === 0 || (filter === 2 && first)) return;
  if (filter === 1 || (filter === 4 && first)) {
    for (let i = row + bpp; i < end; i++) raw[i] = byte(raw, i) + byte(raw, i - bpp);
  } else if (filter === 2) {
    for (let i = row, j = above; i < end; i++, j++) raw[i] = byte(raw, i) + byte(raw, j);
  } else if (filter === 3) {
    if (first) for (let i = row + bpp; i < end; i++) raw[i] = byte(raw, i) + (byte(raw, i - bpp) >> 1);
    else {
      for (let i = row, j = above; i < row + bpp; i++, j++) raw[i] = byte(raw, i) + (byte(raw, j) >> 1);
      for (let i = row + bpp, j = above + bpp; i < end; i++, j++)
        raw[i] = byte(raw, i) + ((byte(raw, i - bpp) + byte(raw, j)) >> 1);
    }
  } else if (filter === 4) {
    // With nothing to the left, Paeth picks the byte above.
    for (let i = row, j = above; i < row + bpp; i++, j++) raw[i] = byte(raw, i) + byte(raw, j);
    for (let i = row + bpp, j = above + bpp; i < end; i++, j++) {
      const left = byte(raw, i - bpp);
      const up = byte(raw, j);
      const upLeft = byte(raw, j - bpp);
      // Distances of left + up - upLeft to left, up and upLeft.
      const toLeft = Math.abs(up - upLeft);
      const toUp = Math.abs(left - upLeft);
      const toUpLeft = Math.abs(left + up - 2 * upLeft);
      raw[i] = byte(raw, i) + (toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft);
    }
  } else throw new Error(`PNG row ${(row - 1) / (stride + 1)} has an unknown filter ${filter}`);
}

/**
 * Decodes a PNG to RGBA pixels. Chromium's screenshots (8-bit RGB or RGBA, not interlaced) take
 * a direct path: inflate, undo each row's filter in place, widen to RGBA. pngjs does the same
 * through general code that costs about twice as long on a 1920×1080 screenshot, and the
 * comparison decodes two of them; any other PNG (a palette, 16 bits, interlaced) goes to pngjs.
 * The pixels' buffer may be a reused one: see `takeBuffer` and `releasePixels`.
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
  const bpp = colour === 6 ? 4 : 3;
  const stride = width * bpp;
  const size = (stride + 1) * height;
  // Room for one byte more than the rows need makes zlib inflate into a single buffer; by
  // default it fills 16 KB pieces and then copies them all into one (twice the memory).
  const raw = zlib.inflateSync(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks), {
    chunkSize: Math.max(size + 1, zlib.constants.Z_MIN_CHUNK),
  });
  if (raw.length < size) throw new Error('PNG data is shorter than its size says');
  const data = takeBuffer(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1) + 1;
    unfilterRow(raw, row, stride, bpp, y === 0);
    const out = y * width * 4;
    if (bpp === 4) raw.copy(data, out, row, row + stride);
    else
      for (let x = 0, i = row, j = out; x < width; x++, i += 3, j += 4) {
        data[j] = byte(raw, i);
        data[j + 1] = byte(raw, i + 1);
        data[j + 2] = byte(raw, i + 2);
        data[j + 3] = 255;
      }
  }
  return { width, height, data };
}

/**
 * Compares two PNG screenshots pixel by pixel with pixelmatch; the diff is painted red. Pixels
 * it decodes itself are released when it is done; pixels passed in stay the caller's.
 */
export function compareScreenshots(
  expected: Buffer | Pixels,
  actual: Buffer | Pixels,
  threshold = 0.2,
  withDiff = true,
): Comparison {
  const a = decoded(expected);
  const b = decoded(actual);
  let diff: Buffer | null = null;
  try {
    const width = b.width;
    const height = b.height;
    if (a.width !== b.width || a.height !== b.height) {
      const pixels = Math.max(a.width * a.height, width * height);
      return { diffPixels: pixels, ratio: 1, width, height, diff: null, sizeMismatch: true };
    }
    // pixelmatch paints every pixel of the diff, so a reused buffer's old content never shows.
    diff = withDiff ? takeBuffer(width * height * 4) : null;
    const diffPixels = pixelmatch(a.data, b.data, diff ?? undefined, width, height, { threshold });
    const total = width * height;
    return {
      diffPixels,
      ratio: total === 0 ? 0 : diffPixels / total,
      width,
      height,
      diff: diff ? encodeDiff(diff, width, height) : null,
      sizeMismatch: false,
    };
  } finally {
    if (a !== expected) releasePixels(a);
    if (b !== actual) releasePixels(b);
    if (diff) giveBuffer(diff);
  }
}

function encodeDiff(data: Buffer, width: number, height: number): Buffer {
  const image = new PNG();
  image.width = width;
  image.height = height;
  image.data = data;
  // Fastest deflate and no filter search: 3-4× faster than pngjs's defaults on a 1080p diff,
  // and no larger, since a diff is mostly flat grey.
  return PNG.sync.write(image, { deflateLevel: 1, filterType: 0 });
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
  // Once the verdict (and any diff) is made; a step that throws before just leaves it to the collector.
  const releaseBaseline = () => {
    if (decodedBaseline) releasePixels(decodedBaseline);
    decodedBaseline = null;
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
  if (record.status === 'passed') {
    releaseBaseline();
    return { record, failure: null };
  }
  const baseline = baselinePixels();
  const withDiff = compareScreenshots(baseline, actual, options.threshold, true);
  const baselineSize = `${baseline.width}×${baseline.height}`;
  releaseBaseline();
  await attach('actual', actual);
  if (withDiff.diff) await attach('diff', withDiff.diff);
  const size = `${comparison.width}×${comparison.height}`;
  const failure = comparison.sizeMismatch
    ? `the screenshot is ${size}, the baseline ${baselineSize} (ratio 1)`
    : `the screenshot differs from the baseline: ${comparison.diffPixels} of ${comparison.width * comparison.height} pixels (ratio ${formatRatio(comparison.ratio)}) differ, ${allowed} allowed; diff: ${name}-diff.png`;
  return { record, failure };
}

/** A ratio with enough digits to tell a few pixels from none: 0.0123, 0.00004. */
export function formatRatio(ratio: number): string {
  if (ratio === 0 || ratio >= 0.01) return ratio.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
  return Number(ratio.toPrecision(2)).toString();
}
