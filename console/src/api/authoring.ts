import {
  type bulkDeleteBody,
  type bulkRemoteRunBody,
  type bulkUpdateStatusBody,
  type bulkUpdateTagsBody,
  type CreateBranchBody,
  type CreateTestData,
  consoleBranchResponse,
  consoleTagsResponse,
  createdTest,
  dataOf,
  deletedStepResponse,
  duplicatedTestResponse,
  type exportTestsBody,
  importResponse,
  listTestsResponse,
  noPayloadResponse,
  remoteRunResponse,
  replacedChildrenResponse,
  revisionDetailResponse,
  revisionResponse,
  revisionsResponse,
  sharedStepListResponse,
  stepChildrenResponse,
  stepUsageResponse,
  testDetailResponse,
  testFilesResponse,
  type UpdateTestData,
  updatedStepResponse,
} from '@stepdeck/contract';
import type { z } from 'zod';
import { type ProjectScope, request } from './client.ts';
import { deleteKeepingErrorBody, downloadFrom, sendForm } from './forms.ts';

/** The authoring pages' calls (tests tree, test editor), typed by the contract's schemas. */
export const authoringApi = {
  /** `query` holds `GET /v1/tests` parameters (see the contract's `listTestsQuery`). */
  tests: (scope: ProjectScope, query: Record<string, string | number | undefined>) =>
    request('/v1/tests', listTestsResponse, { scope, query }),
  test: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}`, testDetailResponse, { scope }),
  tags: () => request('/console/v1/tags', consoleTagsResponse),
  // The multipart routes take the form's fields as a JSON body too (no files here).
  createTest: (scope: ProjectScope, testData: Partial<CreateTestData>) =>
    request('/v1/tests', dataOf(createdTest), { scope, method: 'POST', body: { testData } }),
  updateTest: (scope: ProjectScope, testId: string, testData: UpdateTestData) =>
    request(`/v1/tests/${testId}`, noPayloadResponse, { scope, method: 'PUT', body: { testData } }),
  duplicate: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}/duplicate`, duplicatedTestResponse, { scope, method: 'POST', body: {} }),
  deleteTest: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}`, noPayloadResponse, { scope, method: 'DELETE' }),
  bulkStatus: (scope: ProjectScope, body: z.infer<typeof bulkUpdateStatusBody>) =>
    request('/v1/tests/bulk-update-status', noPayloadResponse, { scope, method: 'POST', body }),
  bulkTags: (scope: ProjectScope, body: z.infer<typeof bulkUpdateTagsBody>) =>
    request('/v1/tests/bulk-update-tags', noPayloadResponse, { scope, method: 'POST', body }),
  bulkDelete: (scope: ProjectScope, body: z.infer<typeof bulkDeleteBody>) =>
    request('/v1/tests/bulk-delete', noPayloadResponse, { scope, method: 'POST', body }),
  runTests: (scope: ProjectScope, body: z.infer<typeof bulkRemoteRunBody>) =>
    request('/v1/tests/remote-run', remoteRunResponse, { scope, method: 'POST', body }),
  revisions: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}/revisions`, revisionsResponse, { scope }),
  revision: (scope: ProjectScope, testId: string, revisionId: string) =>
    request(`/v1/tests/${testId}/revisions/${revisionId}`, revisionDetailResponse, { scope }),
  saveRevision: (scope: ProjectScope, testId: string, message: string) =>
    request(`/v1/tests/${testId}/revisions`, revisionResponse, { scope, method: 'POST', body: { message } }),
  sharedSteps: (scope: ProjectScope, search: string) =>
    request('/v1/steps/shared', sharedStepListResponse, { scope, query: { search, limit: 100 } }),
  stepChildren: (scope: ProjectScope, stepId: string) =>
    request(`/v1/steps/${stepId}/children`, stepChildrenResponse, { scope }),
  stepUsage: (scope: ProjectScope, stepId: string) =>
    request(`/v1/steps/${stepId}/usage`, stepUsageResponse, { scope }),
  // Move, export and import of tests in the tree.
  move: (scope: ProjectScope, testId: string, parentTestId: string | null) =>
    request(`/v1/tests/${testId}`, noPayloadResponse, {
      scope,
      method: 'PUT',
      body: { testData: { parentTestId } },
    }),
  files: (scope: ProjectScope, testId: string) =>
    request(`/v1/tests/${testId}/files`, testFilesResponse, { scope }),
  /** The save with uploads for `setInputFiles` steps (the PUT's `files` form field). */
  updateTestWithFiles: (scope: ProjectScope, testId: string, testData: UpdateTestData, files: File[]) => {
    const form = new FormData();
    form.append('testData', JSON.stringify(testData));
    for (const file of files) form.append('files', file, file.name);
    return sendForm(`/v1/tests/${testId}`, noPayloadResponse, { scope, method: 'PUT', form });
  },
  exportTests: (scope: ProjectScope, body: z.input<typeof exportTestsBody>) =>
    downloadFrom('/v1/tests/export', { scope, body }),
  importTests: (scope: ProjectScope, file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return sendForm('/v1/tests/import', importResponse, { scope, method: 'POST', form });
  },
  // Shared steps: rename (copy-on-write across branches is the service's) and delete when unused.
  renameSharedStep: (scope: ProjectScope, stepId: string, name: string) => {
    const form = new FormData();
    form.append('stepData', JSON.stringify({ name }));
    return sendForm(`/v1/steps/${stepId}/update`, updatedStepResponse, { scope, method: 'PUT', form });
  },
  /** Replaces a shared group's children through a node using it (`revisionStepId`), with uploads. */
  replaceSharedChildren: (
    scope: ProjectScope,
    revisionStepId: string,
    children: unknown[],
    files: File[],
  ) => {
    const form = new FormData();
    form.append('children', JSON.stringify(children));
    for (const file of files) form.append('files', file, file.name);
    return sendForm(`/v1/steps/${revisionStepId}/children`, replacedChildrenResponse, {
      scope,
      method: 'PUT',
      form,
    });
  },
  /** A refusal while used throws `ApiErrorWithBody`; read its body with `stepStillUsedBody`. */
  deleteSharedStep: (scope: ProjectScope, stepId: string) =>
    deleteKeepingErrorBody(`/v1/steps/${stepId}`, deletedStepResponse, scope),
  createBranch: (projectId: string, body: CreateBranchBody) =>
    request(`/console/v1/projects/${projectId}/branches`, consoleBranchResponse, {
      method: 'POST',
      body,
    }),
};
