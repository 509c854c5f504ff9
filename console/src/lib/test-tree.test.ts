import { describe, expect, it } from 'vitest';
import { ancestorIds, descendantsOf, loadedRows, pathOf, type TestItem, visibleRows } from './test-tree.ts';

const item = (id: string, parentTestId: string | null, directory = false): TestItem => ({
  id,
  parentTestId,
  projectId: 'p',
  organizationId: 'o',
  name: id,
  status: 'active',
  directory,
  config: {},
  vars: null,
  parameters: null,
  metadata: {},
  tags: [],
  childrenCount: 0,
  stepsCount: 0,
  createdAt: '',
  updatedAt: '',
});

const tests = [item('a', null, true), item('b', 'a', true), item('c', 'b'), item('d', null), item('e', 'a')];

describe('test tree', () => {
  it('lists depth-first with depths, skipping folded directories', () => {
    expect(visibleRows(tests, new Set()).map((row) => `${row.test.id}${row.depth}`)).toEqual([
      'a0',
      'b1',
      'c2',
      'e1',
      'd0',
    ]);
    expect(visibleRows(tests, new Set(['b'])).map((row) => row.test.id)).toEqual(['a', 'b', 'e', 'd']);
  });
  it('shows a test whose directory is not listed at the top level', () => {
    expect(visibleRows([item('x', 'missing')], new Set()).map((row) => row.depth)).toEqual([0]);
  });
  it('names every descendant of a directory and the path above a test', () => {
    expect(descendantsOf(tests, 'a').map((test) => test.id)).toEqual(['b', 'c', 'e']);
    expect(pathOf(new Map(tests.map((test) => [test.id, test])), item('c', 'b'))).toBe('a / b');
  });
  it('shows a tree loaded on demand: expanded directories with their listed children, others folded', () => {
    const top = [item('a', null, true), item('d', null)];
    const children = new Map([
      ['a', [item('b', 'a', true), item('e', 'a')]],
      ['b', [item('c', 'b')]],
    ]);
    const rows = (expanded: string[]) =>
      loadedRows(top, children, new Set(expanded)).map(
        (row) => `${row.test.id}${row.depth}${row.loading ? '…' : ''}`,
      );
    expect(rows([])).toEqual(['a0', 'd0']);
    expect(rows(['a'])).toEqual(['a0', 'b1', 'e1', 'd0']);
    expect(rows(['a', 'b'])).toEqual(['a0', 'b1', 'c2', 'e1', 'd0']);
    // Expanded inside a folded directory: hidden until the directory above opens.
    expect(rows(['b'])).toEqual(['a0', 'd0']);
    // Expanded but not listed yet: the directory says its children are loading.
    expect(loadedRows(top, new Map(), new Set(['a'])).map((row) => Boolean(row.loading))).toEqual([
      true,
      false,
    ]);
  });
  it('does not loop on a directory listed inside itself', () => {
    const loop = new Map([['a', [item('a', 'a', true)]]]);
    expect(loadedRows([item('a', null, true)], loop, new Set(['a'])).map((row) => row.depth)).toEqual([0, 1]);
  });
  it('walks up from a directory to the top, and stops on a loop', () => {
    const byId = new Map(
      [item('a', null, true), item('b', 'a', true), item('c', 'b')].map((test) => [test.id, test]),
    );
    expect(ancestorIds(byId, 'b')).toEqual(['b', 'a']);
    expect(ancestorIds(byId, null)).toEqual([]);
    const loop = new Map([item('x', 'y', true), item('y', 'x', true)].map((test) => [test.id, test]));
    expect(ancestorIds(loop, 'x')).toHaveLength(64);
  });
});
