import type { testListItem } from '@stepdeck/contract';
import type { z } from 'zod';

export type TestItem = z.infer<typeof testListItem>;

export interface TreeRow {
  test: TestItem;
  depth: number;
  /** An expanded directory whose children are still being asked for. */
  loading?: boolean;
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

/**
 * The rows of a tree loaded on demand: the top level, and below each expanded directory its
 * children once they have been listed (`children` holds them by directory id).
 */
export function loadedRows(
  top: readonly TestItem[],
  children: ReadonlyMap<string, readonly TestItem[]>,
  expanded: ReadonlySet<string>,
): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (list: readonly TestItem[], depth: number, path: ReadonlySet<string>) => {
    for (const test of list) {
      const open = test.directory && expanded.has(test.id) && !path.has(test.id);
      const below = open ? children.get(test.id) : undefined;
      rows.push(open && !below ? { test, depth, loading: true } : { test, depth });
      if (below) walk(below, depth + 1, new Set([...path, test.id]));
    }
  };
  walk(top, 0, new Set());
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
  return ancestorIds(byId, test.parentTestId)
    .map((id) => byId.get(id)?.name)
    .filter((name) => name !== undefined)
    .reverse()
    .join(' / ');
}

/**
 * `id` and the directories above it, nearest first, as far as `byId` knows them (at most 64:
 * a loop in stale data cannot hang the page).
 */
export function ancestorIds(byId: ReadonlyMap<string, TestItem>, id: string | null): string[] {
  const ids: string[] = [];
  for (let current = id; current && ids.length < 64; current = byId.get(current)?.parentTestId ?? null)
    ids.push(current);
  return ids;
}
