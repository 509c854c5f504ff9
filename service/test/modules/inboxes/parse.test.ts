import { describe, expect, it } from 'vitest';
import { extractUrls, truncateUtf8 } from '../../../src/modules/inboxes/parse.ts';

describe('truncateUtf8', () => {
  it('keeps a value that fits', () => {
    expect(truncateUtf8('héllo', 6)).toBe('héllo');
  });

  it('cuts on a character boundary, never inside a multi-byte character', () => {
    // 'a' + 3-byte euro signs: 1 + 3k bytes; at 8 bytes the third euro would be split.
    expect(truncateUtf8('a€€€€', 8)).toBe('a€€');
    expect(Buffer.byteLength(truncateUtf8('a€€€€', 8))).toBe(7);
    // 4-byte emoji (a surrogate pair in JS) are never halved either.
    expect(truncateUtf8('😀😀😀', 7)).toBe('😀');
    expect(truncateUtf8('😀😀😀', 8)).toBe('😀😀');
    expect(truncateUtf8('😀😀😀', 3)).toBe('');
  });

  it('cuts plain ASCII at exactly the limit', () => {
    expect(truncateUtf8('x'.repeat(200_000), 131072)).toHaveLength(131072);
  });
});

describe('extractUrls', () => {
  it('returns the http(s) links of anchors and areas, decoded and in document order', () => {
    const html = `
      <html><body>
        <p>Hi! Plain text mention https://text.example/not-a-link is not a link.</p>
        <A HREF="https://app.example/verify?token=abc&amp;next=%2Fhome">Verify</A>
        <a href="  http://localhost:3000/reset  ">Reset</a>
        <a href="mailto:someone@example.com">mail</a>
        <a href="/relative/path">relative</a>
        <a href="javascript:alert(1)">js</a>
        <!-- <a href="https://comment.example/hidden">hidden</a> -->
        <script>var s = '<a href="https://script.example/x">';</script>
        <map><area href="https://map.example/area" alt="area"></map>
        <a href="https://app.example/verify?token=abc&amp;next=%2Fhome">again</a>
        <img src="https://img.example/pixel.png">
      </body></html>`;
    expect(extractUrls(html)).toEqual([
      'https://app.example/verify?token=abc&next=%2Fhome',
      'http://localhost:3000/reset',
      'https://map.example/area',
    ]);
  });

  it('returns nothing for an empty body', () => {
    expect(extractUrls('')).toEqual([]);
  });
});
