import { hashKey } from '@tanstack/react-query';
import type { ProjectScope } from '../api/client.ts';

/** Filters narrow the list (shown flat, with each test's directory); no filter shows the tree. */
export const filterNames = ['name', 'status', 'tagIds', 'type'] as const;
export const sortNames = ['sortBy', 'sortOrder'] as const;
/**
 * Most tests one list answer holds: a filtered list (flat, read whole), the tree's top level, and
 * the whole tree read by the dialogs that pick a directory.
 */
export const treeLimit = 10_000;

export type TestsQuery = Record<string, string | number | undefined>;

/** Whether the page's URL search narrows the list (a flat list) rather than showing the tree. */
export function isFiltered(search: URLSearchParams): boolean {
  return filterNames.some((name) => search.get(name) && !(name === 'type' && search.get(name) === 'all'));
}

/**
 * The tests page's list query for the page's URL search. Unfiltered, the tree loads on demand:
 * this is its top level only (`topLevel=true`, the service's extension; directories carry their
 * `childrenCount`), sorted as asked; each expanded directory asks for its own children
 * (`childrenQueryOf`). Filtered, the whole filtered list, flat.
 */
export function testsQueryOf(search: URLSearchParams): TestsQuery {
  const query: TestsQuery = { limit: treeLimit, type: 'all' };
  for (const name of [...filterNames, ...sortNames]) query[name] = search.get(name) ?? query[name];
  if (!isFiltered(search)) query.topLevel = 'true';
  return query;
}

/** A directory's direct children (the spec's `testId` filter: unpaginated), in the tree's sort. */
export function childrenQueryOf(search: URLSearchParams, directoryId: string): TestsQuery {
  const query: TestsQuery = { type: 'all', testId: directoryId };
  for (const name of sortNames) query[name] = search.get(name) ?? undefined;
  return query;
}

/** Every test of the branch, flat: the dialogs' directory choices and a filtered list's paths. */
export const wholeTreeQuery: TestsQuery = { limit: treeLimit, type: 'all' };

/**
 * The tests page's cache key, one definition for the page and the start-up prefetch
 * (src/lib/prefetch.ts), so the prefetched answer is the page's own. Kept apart from the page's
 * module: the prefetch must not load the page's code before it is needed. Every key starts with
 * `['tests']`, so a change's invalidation refreshes the top level and every expanded directory.
 */
export const testsQueryKey = (scope: ProjectScope, query: TestsQuery) =>
  ['tests', scope.projectId, scope.branchId, 'tree', query] as const;

/** Lists loaded by the start-up prefetch (src/lib/prefetch.ts). */
const prefetched = new Set<string>();

export function markStartUpPrefetch(key: ReturnType<typeof testsQueryKey>): void {
  prefetched.add(hashKey(key));
}

/**
 * How long the page's list stays fresh: the start-up prefetch's answer, still the only one, for
 * 2 s (so the page's mount does not ask again right after it); any other answer not at all, as
 * before (the editor changes tests without touching this cache).
 */
export function treeStaleTime(query: { queryHash: string; state: { dataUpdateCount: number } }): number {
  return prefetched.has(query.queryHash) && query.state.dataUpdateCount === 1 ? 2_000 : 0;
}
