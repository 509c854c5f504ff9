import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { readPng } from '../../src/runner/compiler/runtime/stepdeck-visual.ts';

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
