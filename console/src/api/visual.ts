import { visualChangeListResponse, visualDecisionResponse } from '@stepdeck/contract';
import { ApiError, csrfHeader, type ProjectScope, request } from './client.ts';

/** A run's visual changes and their review, typed by the contract's schemas. */
export const visualApi = {
  changes: (scope: ProjectScope, runId: string) =>
    request(`/v1/test-runs/${runId}/visual-changes`, visualChangeListResponse, { scope }),
  /** `changeIds` absent: every pending change of the run. */
  decide: (scope: ProjectScope, runId: string, decision: 'approve' | 'reject', changeIds?: string[]) =>
    request(`/v1/test-runs/${runId}/visual-changes/${decision}`, visualDecisionResponse, {
      scope,
      method: 'POST',
      body: changeIds ? { changeIds } : {},
    }),
  /**
   * A picture of a change. The route needs the project header, which an <img src> cannot send,
   * so the page fetches the bytes and shows them through an object URL.
   */
  image: async (scope: ProjectScope, path: string, signal: AbortSignal): Promise<Blob> => {
    const headers: Record<string, string> = { [csrfHeader]: '1', 'x-project-id': scope.projectId };
    if (scope.branchId) headers['x-branch-id'] = scope.branchId;
    const response = await fetch(path, { headers, credentials: 'same-origin', signal });
    if (!response.ok) throw new ApiError(response.status, `The picture did not load (${response.status})`);
    return response.blob();
  },
};
