import {
  cancelRunResponse,
  consoleBranchesResponse,
  consoleOrganizationResponse,
  consoleProjectsResponse,
  consoleSchedulesResponse,
  consoleUserResponse,
  listTestsResponse,
  type PasswordChange,
  remoteRunResponse,
  runArtifactsResponse,
  runStatisticsResponse,
  type SignInBody,
  type TestRunListQuery,
  testDetailResponse,
  testRunDetailResponse,
  testRunListResponse,
  useLocatorResponse,
} from '@stepdeck/contract';
import { z } from 'zod';
import { type ProjectScope, request } from './client.ts';

/** The signed-in user's query (`api.session`), read by the session guard, sign-in and permissions. */
export const sessionKey = ['session'] as const;

/** Every call the console makes, typed by the contract's schemas. */
export const api = {
  signIn: (body: SignInBody) => request('/console/v1/session', consoleUserResponse, { method: 'POST', body }),
  session: () => request('/console/v1/session', consoleUserResponse),
  signOut: () => request('/console/v1/session', z.object({ data: z.null() }), { method: 'DELETE' }),
  changePassword: (body: PasswordChange) =>
    request('/console/v1/session/password', z.object({ data: z.null() }), { method: 'PUT', body }),
  organization: () => request('/console/v1/organization', consoleOrganizationResponse),
  projects: () => request('/console/v1/projects', consoleProjectsResponse),
  branches: (projectId: string) =>
    request(`/console/v1/projects/${projectId}/branches`, consoleBranchesResponse),
  schedules: (projectId: string) =>
    request('/console/v1/schedules', consoleSchedulesResponse, { query: { projectId } }),
  /** One test or directory with its configuration (the run page's effective config). */
  test: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}`, testDetailResponse, { scope }),
  tests: (scope: ProjectScope) =>
    request('/v1/tests', listTestsResponse, { scope, query: { limit: 100, type: 'all' } }),
  runs: (scope: ProjectScope, query: Partial<TestRunListQuery>) =>
    request('/v1/test-runs', testRunListResponse, { scope, query }),
  run: (scope: ProjectScope, runId: string, signal?: AbortSignal) =>
    request(`/v1/test-runs/${runId}`, testRunDetailResponse, { scope, signal }),
  artifacts: (scope: ProjectScope, runId: string) =>
    request(`/v1/test-runs/${runId}/artifacts`, runArtifactsResponse, { scope }),
  stats: (scope: ProjectScope) =>
    request('/v1/test-runs/stats', runStatisticsResponse, { scope, query: { branchId: scope.branchId } }),
  cancel: (scope: ProjectScope, runId: string) =>
    request(`/v1/test-runs/${runId}/cancel`, cancelRunResponse, { scope, method: 'POST' }),
  /** A run of a test; `environment` names one of the project's environments. */
  runTest: (scope: ProjectScope, testId: string, config: unknown, environment?: string | null) =>
    request(`/v1/tests/${testId}/remote-run`, remoteRunResponse, {
      scope,
      method: 'POST',
      body: { ...(config ? { config } : {}), ...(environment ? { environment } : {}) },
    }),
  /** A run's locator suggestion becomes its step's selector in the test's working revision. */
  applyLocatorSuggestion: (runId: string, testId: string, stepId: string, locator: string) =>
    request(
      `/console/v1/test-runs/${runId}/tests/${testId}/steps/${encodeURIComponent(stepId)}/use-locator`,
      useLocatorResponse,
      { method: 'POST', body: { locator } },
    ),
  runTag: (scope: ProjectScope, tagId: string, config: unknown, environment?: string | null) =>
    request('/v1/tests/remote-run', remoteRunResponse, {
      scope,
      method: 'POST',
      body: { tagId, ...(config ? { config } : {}), ...(environment ? { environment } : {}) },
    }),
};

/** Same-origin address of a run's artifact (the trace viewer's service worker can fetch it). */
export const artifactUrl = (runId: string, key: string) =>
  `/console/v1/test-runs/${runId}/artifact?key=${encodeURIComponent(key)}`;

/** Playwright's own trace viewer, served by the service, opened on one artifact. */
export const traceViewerUrl = (runId: string, key: string) =>
  `/console/trace/index.html?trace=${encodeURIComponent(new URL(artifactUrl(runId, key), window.location.origin).href)}`;
