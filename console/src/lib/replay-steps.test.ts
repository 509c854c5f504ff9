import { describe, expect, it } from 'vitest';
import { stepNumber, stepsUpTo } from './replay-steps.ts';
import type { EditorStep } from './step-tree-edit.ts';

const step = (key: string, children: EditorStep[] = []): EditorStep => ({
  key,
  name: key,
  action: children.length > 0 ? { name: 'group' } : { name: 'click', selector: `#${key}` },
  condition: null,
  shared: false,
  children,
});
/** Keys of a replay's steps, groups as [key, children]. */
type Shape = string | [string, Shape[]];
const shape = (steps: ReturnType<typeof stepsUpTo>): Shape[] =>
  (steps ?? []).map((entry) =>
    entry.children && entry.children.length > 0 ? [entry.id, shape(entry.children)] : entry.id,
  );

const tree = [step('a'), step('g', [step('b'), step('h', [step('c'), step('d')]), step('e')]), step('f')];

describe('the steps a replay sends', () => {
  it('holds every step before the chosen one and the chosen one, in order', () => {
    expect(shape(stepsUpTo(tree, 'a'))).toEqual(['a']);
    expect(shape(stepsUpTo(tree, 'f'))).toEqual(['a', ['g', ['b', ['h', ['c', 'd']], 'e']], 'f']);
  });

  it('cuts the groups the chosen step is in after it, and keeps a chosen group whole', () => {
    expect(shape(stepsUpTo(tree, 'c'))).toEqual(['a', ['g', ['b', ['h', ['c']]]]]);
    expect(shape(stepsUpTo(tree, 'h'))).toEqual(['a', ['g', ['b', ['h', ['c', 'd']]]]]);
  });

  it('sends each step as the editor holds it, keyed for the answer', () => {
    const [first] = stepsUpTo([{ ...step('a'), condition: { type: 'skip' } }], 'a') ?? [];
    expect(first).toEqual({
      id: 'a',
      name: 'a',
      action: { name: 'click', selector: '#a' },
      condition: { type: 'skip' },
      children: [],
    });
    expect(stepsUpTo(tree, 'missing')).toBeUndefined();
  });

  it('numbers a step as the step list does', () => {
    expect(stepNumber(tree, 'd')).toBe('2.2.2');
    expect(stepNumber(tree, 'f')).toBe('3');
  });
});
