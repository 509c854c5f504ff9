import type { testListItem } from '@stepdeck/contract';
import type { z } from 'zod';

export type TestItem = z.infer<typeof testListItem>;

export interface TreeRow {
  test: TestItem;
  depth: number;
}

/** Children of each directory (key `null`: the root), in the order the API listed them. */
export function childrenByParent(tests: readonly TestItem[]): Map<string | null, TestItem[]> {
  const ids = new Set(tests.map((test) => test.id));
  const map = new Map<string | null, TestItem[]>();
  for (const test of tests) {
    // A parent outside the list (not loaded) would hide the test: show it at the root instead.
    const parent = test.parentTestId && ids.has(test.parentTestId) ? test.parentTestId : null;
    const list = map.get(parent) ?? [];
    list.push(test);
    map.set(parent, list);
  }
  return map;
}

/** The rows to show: depth-first, skipping the insides of collapsed directories. */
export function visibleRows(tests: readonly TestItem[], collapsed: ReadonlySet<string>): TreeRow[] {
  const children = childrenByParent(tests);
  const rows: TreeRow[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const test of children.get(parent) ?? []) {
      rows.push({ test, depth });
      if (test.directory && !collapsed.has(test.id)) walk(test.id, depth + 1);
    }
  };
  walk(null, 0);
  return rows;
}

/** Every test below a directory (what deleting it takes along), depth-first. */
export function descendantsOf(tests: readonly TestItem[], id: string): TestItem[] {
  const children = childrenByParent(tests);
  const out: TestItem[] = [];
  const walk = (parent: string) => {
    for (const child of children.get(parent) ?? []) {
      out.push(child);
      walk(child.id);
    }
  };
  walk(id);
  return out;
}

/** "a / b / c": the directories above a test, for the flat (filtered) list. */
export function pathOf(byId: ReadonlyMap<string, TestItem>, test: TestItem): string {
  const names: string[] = [];
  let parent = test.parentTestId ? byId.get(test.parentTestId) : undefined;
  while (parent && names.length < 64) {
    names.unshift(parent.name);
    parent = parent.parentTestId ? byId.get(parent.parentTestId) : undefined;
  }
  return names.join(' / ');
}
