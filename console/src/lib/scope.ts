import { useParams, useSearchParams } from 'react-router';
import type { ProjectScope } from '../api/client.ts';

/** The project from the URL and the branch from `?branch=` (absent: the project's default). */
export function useProjectScope(): ProjectScope & { branchQuery: string } {
  const { projectId } = useParams();
  const [search] = useSearchParams();
  const branchId = search.get('branch') ?? undefined;
  if (!projectId) throw new Error('useProjectScope outside a project route');
  return { projectId, branchId, branchQuery: branchId ? `?branch=${branchId}` : '' };
}

/** The CI setup page of the project, for one test or directory (`target`) or the whole project. */
export function ciSetupPath(
  scope: { projectId: string; branchId?: string | undefined },
  target?: string,
): string {
  const query = new URLSearchParams();
  if (scope.branchId) query.set('branch', scope.branchId);
  if (target) query.set('target', target);
  const search = query.toString();
  return `/projects/${scope.projectId}/ci-setup${search ? `?${search}` : ''}`;
}

/** The runs list showing one test's (or directory's) runs. */
export function runsOfTestPath(
  scope: { projectId: string; branchId?: string | undefined },
  testId: string,
): string {
  const query = new URLSearchParams({ testId });
  if (scope.branchId) query.set('branch', scope.branchId);
  return `/projects/${scope.projectId}/runs?${query}`;
}
