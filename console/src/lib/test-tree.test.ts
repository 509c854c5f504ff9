import { describe, expect, it } from 'vitest';
import { descendantsOf, pathOf, type TestItem, visibleRows } from './test-tree.ts';

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
});
