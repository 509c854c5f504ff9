import { authoringApi } from '../../api/authoring.ts';
import type { ProjectScope } from '../../api/client.ts';
import type { TestItem } from '../../lib/test-tree.ts';

/**
 * Everything below the given directories (what deleting them takes along), depth-first, each
 * once, read level by level with the spec's `testId` filter (a directory's direct children), so
 * naming what goes costs one request per directory inside rather than the whole tree.
 */
export async function loadDescendants(scope: ProjectScope, directoryIds: readonly string[]) {
  const childrenOf = new Map<string, TestItem[]>();
  let frontier = [...new Set(directoryIds)];
  while (frontier.length > 0) {
    const lists = await Promise.all(
      frontier.map((testId) => authoringApi.tests(scope, { type: 'all', testId })),
    );
    const next: string[] = [];
    frontier.forEach((id, index) => {
      const children = lists[index]?.children ?? [];
      childrenOf.set(id, children);
      for (const child of children) if (child.directory && !childrenOf.has(child.id)) next.push(child.id);
    });
    frontier = next;
  }
  // Each once, though one chosen directory may sit inside another.
  const out = new Map<string, TestItem>();
  const walk = (id: string) => {
    for (const child of childrenOf.get(id) ?? []) {
      if (out.has(child.id)) continue;
      out.set(child.id, child);
      walk(child.id);
    }
  };
  for (const id of new Set(directoryIds)) walk(id);
  return [...out.values()];
}
