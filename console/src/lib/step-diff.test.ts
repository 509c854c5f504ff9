import { describe, expect, it } from 'vitest';
import { diffLines, stepLines } from './step-diff.ts';

describe('revision diff', () => {
  it('names each step with its place, action and fields', () => {
    expect(
      stepLines([
        {
          id: '1',
          name: 'g',
          action: { name: 'group' },
          children: [{ id: '2', name: 'c', action: { name: 'click', selector: '#a' } }],
        },
      ]),
    ).toEqual(['1. g [group]', '1.1. c [click] {"selector":"#a"}']);
  });
  it('shows removed and added lines around what stayed', () => {
    expect(diffLines(['a', 'b', 'c'], ['a', 'x', 'c', 'd'])).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
  });
});
