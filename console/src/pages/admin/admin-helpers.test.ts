import { describe, expect, it } from 'vitest';
import { hasRemoteContent } from './mail-content.ts';
import { parseCustomData } from './webhook-custom-data.ts';

describe('hasRemoteContent', () => {
  it('sees images, backgrounds, styles and imports from elsewhere', () => {
    expect(hasRemoteContent('<img src="https://t.example/p.gif">')).toBe(true);
    expect(hasRemoteContent("<img src='//t.example/p.gif'>")).toBe(true);
    expect(hasRemoteContent('<td background=http://t.example/b.png>')).toBe(true);
    expect(hasRemoteContent('<div style="background: url( \'https://t.example/x\')">')).toBe(true);
    expect(hasRemoteContent('<style>@import "https://t.example/a.css";</style>')).toBe(true);
  });
  it('ignores links and inline data', () => {
    expect(hasRemoteContent('<a href="https://shop.example/confirm">confirm</a>')).toBe(false);
    expect(hasRemoteContent('<img src="data:image/gif;base64,R0lGOD">')).toBe(false);
    expect(hasRemoteContent('<img src="cid:logo">')).toBe(false);
  });
});

describe('parseCustomData', () => {
  it('reads an empty field as none and a JSON object as the data', () => {
    expect(parseCustomData('  ')).toEqual({ data: null });
    expect(parseCustomData('{"team":"qa"}')).toEqual({ data: { team: 'qa' } });
  });
  it('refuses invalid JSON, non-objects and more than 4 KB, saying which', () => {
    expect(parseCustomData('{team}')).toMatchObject({ problem: expect.stringContaining('not valid JSON') });
    expect(parseCustomData('[1]')).toEqual({
      problem: 'Custom data must be a JSON object, e.g. {"team": "qa"}',
    });
    expect(parseCustomData(JSON.stringify({ a: 'é'.repeat(2100) }))).toEqual({
      problem: 'Custom data must be at most 4 KB of JSON',
    });
  });
});
