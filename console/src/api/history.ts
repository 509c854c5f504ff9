import {
  noPayloadResponse,
  type QuarantineBody,
  type TestHistoryQuery,
  type TestInsightsQuery,
  testHistoryResponse,
  testInsightsResponse,
  testQuarantineResponse,
} from '@stepdeck/contract';
import { type ProjectScope, request } from './client.ts';

/** A test's results across runs, the project's flaky/failing/quarantined lists, and quarantine. */
export const historyApi = {
  history: (scope: ProjectScope, testId: string, query: Partial<TestHistoryQuery>) =>
    request(`/v1/tests/${testId}/history`, testHistoryResponse, { scope, query }),
  insights: (scope: ProjectScope, query: Partial<TestInsightsQuery> = {}) =>
    request('/v1/test-insights', testInsightsResponse, {
      scope,
      query: { ...query, branch: query.branch ?? scope.branchId },
    }),
  quarantine: (scope: ProjectScope, testId: string, body: QuarantineBody) =>
    request(`/v1/tests/${testId}/quarantine`, testQuarantineResponse, { scope, method: 'PUT', body }),
  release: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}/quarantine`, noPayloadResponse, { scope, method: 'DELETE' }),
};

/** Query keys: a quarantine change refreshes every history view of the project. */
export const historyKeys = {
  all: (projectId: string) => ['history', projectId] as const,
  test: (projectId: string, testId: string, query: object) =>
    ['history', projectId, 'test', testId, query] as const,
  insights: (projectId: string, branchId: string | undefined) =>
    ['history', projectId, 'insights', branchId] as const,
};
