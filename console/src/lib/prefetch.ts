import type { QueryClient } from '@tanstack/react-query';
import { matchPath } from 'react-router';
import type { ProjectScope } from '../api/client.ts';
import { api, sessionKey } from '../api/endpoints.ts';
import { markStartUpPrefetch, testsQueryKey, testsQueryOf } from './tree-query.ts';

/** The run page's query: one definition, so the start-up prefetch fills the page's own cache entry. */
export const runQuery = (scope: ProjectScope, runId: string) => ({
  queryKey: ['run', scope.projectId, scope.branchId, runId] as const,
  queryFn: ({ signal }: { signal?: AbortSignal }) => api.run(scope, runId, signal),
  // Just fetched by the prefetch: no second request when the page mounts.
  staleTime: 2_000,
});

/**
 * Starts, before the first render, the requests the opened page will need, so that they run in
 * parallel with the session check instead of after it (the run page is what every link points
 * to). A 401 here sends the user to sign in exactly as the page's own request would.
 */
export function prefetchForLocation(queryClient: QueryClient, location: Location): void {
  void queryClient.prefetchQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  const pathname = location.pathname.replace(/^\/console(?=\/|$)/, '') || '/';
  const run = matchPath('/projects/:projectId/runs/:runId', pathname);
  if (run?.params.projectId && run.params.runId) {
    const branchId = new URLSearchParams(location.search).get('branch') ?? undefined;
    void queryClient.prefetchQuery(runQuery({ projectId: run.params.projectId, branchId }, run.params.runId));
  }
  const tests = matchPath('/projects/:projectId/tests', pathname);
  if (tests?.params.projectId) {
    const search = new URLSearchParams(location.search);
    const scope = { projectId: tests.params.projectId, branchId: search.get('branch') ?? undefined };
    const query = testsQueryOf(search);
    // The list loads while the session is checked (the router loads the page's code: its route
    // is lazy); the list's request itself was started by index.html and is taken over here.
    const queryKey = testsQueryKey(scope, query);
    markStartUpPrefetch(queryKey);
    import('../api/authoring.ts')
      .then(({ authoringApi }) =>
        queryClient.prefetchQuery({ queryKey, queryFn: () => authoringApi.tests(scope, query) }),
      )
      // Code that cannot load fails the page's route too, which says so (RouteError).
      .catch(() => {});
  }
}
