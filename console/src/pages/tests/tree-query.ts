import { hashKey } from '@tanstack/react-query';
import type { ProjectScope } from '../../api/client.ts';

/** Filters narrow the list (shown flat, with each test's directory); no filter shows the tree. */
export const filterNames = ['name', 'status', 'tagIds', 'type'] as const;
export const sortNames = ['sortBy', 'sortOrder'] as const;
/** The tree is read whole: a project's tests are listed in one answer up to this many. */
export const treeLimit = 10_000;

export type TestsQuery = Record<string, string | number | undefined>;

/** The tests page's list query for the page's URL search: the tree's, narrowed by filters and sort. */
export function testsQueryOf(search: URLSearchParams): TestsQuery {
  const query: TestsQuery = { limit: treeLimit, type: 'all' };
  for (const name of [...filterNames, ...sortNames]) query[name] = search.get(name) ?? query[name];
  return query;
}

/**
 * The tests page's cache key, one definition for the page and the start-up prefetch
 * (src/lib/prefetch.ts), so the prefetched answer is the page's own. Kept apart from the page's
 * module: the prefetch must not load the page's code before it is needed.
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
