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
