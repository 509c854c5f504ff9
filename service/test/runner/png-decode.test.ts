import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import {
  compareScreenshots,
  compareWithBaseline,
  readPng,
  releasePixels,
} from '../../src/runner/compiler/runtime/stepdeck-visual.ts';

/**
 * The screenshot decoder of `assertScreenshot`: its direct path (8-bit RGB and RGBA, the PNGs
 * Chromium writes) must give exactly pngjs's pixels whatever filter each row uses; other PNGs
 * go to pngjs itself.
 */
function picture(width: number, height: number, opaque: boolean): PNG {
  const png = new PNG({ width, height, colorType: opaque ? 2 : 6, inputHasAlpha: true });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      // Gradients, stripes and noise: every filter type is the best for some rows.
      png.data[i] = (x * 3 + y) & 255;
      png.data[i + 1] = y % 7 < 3 ? 250 : (x * y) & 255;
      png.data[i + 2] = Math.floor(Math.random() * 256);
      png.data[i + 3] = opaque ? 255 : (x + y * 5) & 255;
    }
  return png;
}

describe('readPng', () => {
  for (const opaque of [true, false])
    for (const filterType of [-1, 0, 1, 2, 3, 4])
      it(`decodes ${opaque ? 'RGB' : 'RGBA'} rows filtered ${filterType === -1 ? 'adaptively' : `with filter ${filterType}`} as pngjs does`, () => {
        const encoded = PNG.sync.write(picture(97, 61, opaque), {
          colorType: opaque ? 2 : 6,
          filterType,
        });
        expect(encoded[25]).toBe(opaque ? 2 : 6);
        const mine = readPng(encoded);
        const theirs = PNG.sync.read(encoded);
        expect([mine.width, mine.height]).toEqual([97, 61]);
        expect(Buffer.compare(mine.data, theirs.data)).toBe(0);
      });

  it('reads data split over several IDAT chunks', () => {
    const png = picture(300, 200, true);
    // pngjs writes one IDAT; split it in two to be sure both are read.
    const single = PNG.sync.write(png, { colorType: 2 });
    const idat = single.indexOf('IDAT') - 4;
    const length = single.readUInt32BE(idat);
    const data = single.subarray(idat + 8, idat + 8 + length);
    const chunk = (bytes: Buffer) => {
      const out = Buffer.alloc(bytes.length + 12);
      out.writeUInt32BE(bytes.length, 0);
      out.write('IDAT', 4, 'latin1');
      bytes.copy(out, 8);
      // The CRC stays zero: neither decoder checks it on this path.
      return out;
    };
    const split = Buffer.concat([
      single.subarray(0, idat),
      chunk(data.subarray(0, 100)),
      chunk(data.subarray(100)),
      single.subarray(idat + 12 + length),
    ]);
    expect(Buffer.compare(readPng(split).data, PNG.sync.read(single).data)).toBe(0);
  });

  it('leaves other PNGs (16-bit, greyscale) to pngjs', () => {
    const grey = PNG.sync.write(picture(20, 10, true), { colorType: 0 });
    expect(Buffer.compare(readPng(grey).data, PNG.sync.read(grey).data)).toBe(0);
    const deep = PNG.sync.write(picture(20, 10, false), { colorType: 6, bitDepth: 16 });
    expect(deep[24]).toBe(16);
    expect(Buffer.compare(readPng(deep).data, PNG.sync.read(deep).data)).toBe(0);
  });

  it('refuses truncated pixel data instead of reading past it', () => {
    const encoded = PNG.sync.write(picture(64, 64, true), { colorType: 2 });
    const idat = encoded.indexOf('IDAT') - 4;
    const length = encoded.readUInt32BE(idat);
    const cut = Buffer.from(encoded.subarray(0, idat + 8 + Math.floor(length / 2)));
    cut.writeUInt32BE(Math.floor(length / 2), idat);
    expect(() => readPng(cut)).toThrow();
  });
});

/** `picture` with a block of another colour: the changed screenshot. */
function withBlock(png: PNG, left: number, top: number): PNG {
  const copy = new PNG({ width: png.width, height: png.height });
  png.data.copy(copy.data);
  for (let y = top; y < Math.min(png.height, top + 12); y++)
    for (let x = left; x < Math.min(png.width, left + 20); x++)
      copy.data.set([10, 200, 30, 255], (y * png.width + x) * 4);
  return copy;
}

/** What a comparison must give, from fresh pngjs buffers: the count and the diff PNG. */
function reference(expected: Buffer, actual: Buffer): { diffPixels: number; diff: Buffer } {
  const a = PNG.sync.read(expected);
  const b = PNG.sync.read(actual);
  const diff = new PNG({ width: b.width, height: b.height });
  const diffPixels = pixelmatch(a.data, b.data, diff.data, b.width, b.height, { threshold: 0.2 });
  return { diffPixels, diff: PNG.sync.write(diff, { deflateLevel: 1, filterType: 0 }) };
}

describe('comparisons reusing pixel buffers', () => {
  const rgb = (png: PNG) => PNG.sync.write(png, { colorType: 2 });
  const original = picture(160, 90, true);
  const a = rgb(original);
  const b = rgb(withBlock(original, 30, 20));
  const c = rgb(withBlock(original, 100, 60));

  it('give what fresh buffers give, comparison after comparison', () => {
    const ab = reference(a, b);
    const ac = reference(a, c);
    expect(ab.diffPixels).toBeGreaterThan(0);
    expect(ac.diffPixels).toBeGreaterThan(0);
    for (let round = 0; round < 3; round++) {
      const first = compareWithBaseline(a, b, 0.2, true);
      expect(first.diffPixels).toBe(ab.diffPixels);
      expect(Buffer.compare(first.diff as Buffer, ab.diff)).toBe(0);
      // The buffers that held A and B are handed out again: nothing of B may stay in either.
      expect(compareScreenshots(a, Buffer.from(a), 0.2, true).diffPixels).toBe(0);
      const other = compareWithBaseline(a, c, 0.2, true);
      expect(other.diffPixels).toBe(ac.diffPixels);
      // The diff buffer too is reused: every pixel of it is repainted.
      expect(Buffer.compare(other.diff as Buffer, ac.diff)).toBe(0);
    }
  });

  it('never reuse pixels the caller passed in, nor pixels given back twice', () => {
    const baseline = readPng(a);
    const ab = reference(a, b).diffPixels;
    const ac = reference(a, c).diffPixels;
    // Were the baseline's buffer given back, a later decode or diff would be written into it;
    // comparisons taking one, two and three buffers go round whatever the pool holds.
    for (let round = 0; round < 4; round++) {
      expect(compareScreenshots(baseline, b, 0.2, round % 2 === 1).diffPixels).toBe(ab);
      expect(compareWithBaseline(a, c, 0.2, true).diffPixels).toBe(ac);
    }
    expect(Buffer.compare(baseline.data, PNG.sync.read(a).data)).toBe(0);
    releasePixels(baseline);
    // Given back twice, it would be handed to both sides of a comparison.
    releasePixels(baseline);
    for (let round = 0; round < 3; round++) {
      expect(compareWithBaseline(a, b, 0.2, round === 1).diffPixels).toBe(ab);
    }
  });

  it('decode a smaller image after a bigger one, and a bigger after a smaller', () => {
    const big = rgb(picture(300, 200, true));
    const small = rgb(picture(40, 30, true));
    for (const png of [big, small, big, small]) {
      const mine = readPng(png);
      const theirs = PNG.sync.read(png);
      expect([mine.width, mine.height, mine.data.length]).toEqual([
        theirs.width,
        theirs.height,
        theirs.data.length,
      ]);
      expect(Buffer.compare(mine.data, theirs.data)).toBe(0);
      releasePixels(mine);
    }
  });
});
