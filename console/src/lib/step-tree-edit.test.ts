import { describe, expect, it } from 'vitest';
import {
  applyMove,
  countSteps,
  type EditorStep,
  fromWire,
  indentStep,
  insertStep,
  levelOf,
  moveStep,
  newKey,
  outdentStep,
  removeStep,
  stepAtPath,
  toChildrenWire,
  toWire,
  treeDepth,
} from './step-tree-edit.ts';

const step = (name: string, action = 'click', children: EditorStep[] = []): EditorStep => ({
  key: name,
  name,
  action: action === 'group' ? { name: 'group' } : { name: action, selector: `#${name}` },
  condition: null,
  shared: false,
  children,
});
const names = (steps: EditorStep[]): unknown[] =>
  steps.map((s) => (s.children.length ? [s.name, names(s.children)] : s.name));

describe('step tree editing', () => {
  const tree = [step('a'), step('g', 'group', [step('b'), step('c')]), step('d')];
  it('moves among siblings, not past the ends', () => {
    expect(names(moveStep(tree, 'd', -1))).toEqual(['a', 'd', ['g', ['b', 'c']]]);
    expect(names(moveStep(tree, 'b', 1))).toEqual(['a', ['g', ['c', 'b']], 'd']);
    expect(moveStep(tree, 'a', -1)).toBe(tree);
  });
  it('nests into the group above and out again', () => {
    const nested = indentStep(tree, 'd');
    expect(names(nested)).toEqual(['a', ['g', ['b', 'c', 'd']]]);
    expect(names(outdentStep(nested, 'b'))).toEqual(['a', ['g', ['c', 'd']], 'b']);
    expect(indentStep(tree, 'g')).toBe(tree);
  });
  it('applies a toolbar or keyboard move by its direction', () => {
    expect(names(applyMove(tree, 'd', 'up'))).toEqual(['a', 'd', ['g', ['b', 'c']]]);
    expect(names(applyMove(tree, 'b', 'down'))).toEqual(['a', ['g', ['c', 'b']], 'd']);
    expect(names(applyMove(tree, 'd', 'in'))).toEqual(['a', ['g', ['b', 'c', 'd']]]);
    expect(names(applyMove(tree, 'c', 'out'))).toEqual(['a', ['g', ['b']], 'c', 'd']);
    expect(applyMove(tree, 'a', 'up')).toBe(tree);
  });
  it('inserts after a step or into a group, and removes', () => {
    expect(names(insertStep(tree, step('x'), 'a'))).toEqual(['a', 'x', ['g', ['b', 'c']], 'd']);
    expect(names(insertStep(tree, step('x'), 'g'))).toEqual(['a', ['g', ['b', 'c', 'x']], 'd']);
    expect(names(removeStep(tree, 'c'))).toEqual(['a', ['g', ['b']], 'd']);
    expect(stepAtPath(tree, [1, 1])?.name).toBe('c');
    expect(names(tree)).toEqual(['a', ['g', ['b', 'c']], 'd']);
  });
  it('sends own steps whole and shared steps by reference', () => {
    const shared: EditorStep = {
      ...step('s', 'group', [step('inner')]),
      key: newKey(),
      stepId: 'id-1',
      shared: true,
    };
    expect(toWire([shared, step('g', 'group', [step('b')])])).toEqual([
      { stepId: 'id-1', shared: true, name: 's' },
      {
        name: 'g',
        action: { name: 'group' },
        group: true,
        children: [{ name: 'b', action: { name: 'click', selector: '#b' } }],
      },
    ]);
    const round = fromWire([
      { id: 'r1', name: 'open', action: { name: 'goto', url: '/' }, condition: { type: 'skip' } },
    ]);
    expect(round[0]).toMatchObject({
      name: 'open',
      condition: { type: 'skip' },
      shared: false,
      children: [],
    });
  });

  it('sends a shared group\u2019s known children with their link ids, own groups whole without one', () => {
    const children = fromWire([
      { id: 'l1', name: 'type', action: { name: 'fill', selector: '#who', value: 'Ada' } },
      { id: 'l2', stepId: 'c2', name: 'login', action: { name: 'group' }, shared: true, group: true },
      {
        id: 'l3',
        name: 'inner',
        action: { name: 'group' },
        group: true,
        children: [{ id: 'l4', name: 'go', action: { name: 'click', selector: '#go' } }],
      },
    ]);
    children.push({
      key: newKey(),
      name: 'new',
      action: { name: 'wait', ms: 1 },
      condition: null,
      shared: false,
      children: [],
    });
    expect(toChildrenWire(children)).toEqual([
      { name: 'type', action: { name: 'fill', selector: '#who', value: 'Ada' }, revisionStepId: 'l1' },
      { stepId: 'c2', shared: true, name: 'login', revisionStepId: 'l2' },
      {
        name: 'inner',
        action: { name: 'group' },
        group: true,
        children: [{ name: 'go', action: { name: 'click', selector: '#go' } }],
      },
      { name: 'new', action: { name: 'wait', ms: 1 } },
    ]);
  });
});

describe('countSteps', () => {
  it('counts every step, groups and their children included', () => {
    expect(countSteps([])).toBe(0);
    const tree = fromWire([
      { id: 'a', action: { name: 'goto' } },
      {
        id: 'g',
        group: true,
        action: { name: 'group' },
        children: [
          { id: 'b', action: { name: 'click' } },
          {
            id: 'h',
            group: true,
            action: { name: 'group' },
            children: [{ id: 'c', action: { name: 'click' } }],
          },
        ],
      },
    ]);
    expect(countSteps(tree)).toBe(5);
  });
});

describe('treeDepth and levelOf', () => {
  const leaf = (key: string): EditorStep => ({
    key,
    name: key,
    action: { name: 'wait', ms: 1 },
    condition: null,
    shared: false,
    children: [],
  });
  const group = (key: string, children: EditorStep[]): EditorStep => ({
    ...leaf(key),
    action: { name: 'group' },
    children,
  });
  it('counts levels as the service does: the top level is 1', () => {
    expect(treeDepth([])).toBe(0);
    expect(treeDepth([leaf('a')])).toBe(1);
    expect(treeDepth([group('g', [])])).toBe(1);
    const tree = [leaf('a'), group('g', [group('h', [leaf('b')])])];
    expect(treeDepth(tree)).toBe(3);
    expect(levelOf(tree, 'a')).toBe(1);
    expect(levelOf(tree, 'h')).toBe(2);
    expect(levelOf(tree, 'b')).toBe(3);
    expect(levelOf(tree, 'nope')).toBeUndefined();
  });
});
