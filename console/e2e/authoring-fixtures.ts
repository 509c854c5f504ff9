import type { Page } from '@playwright/test';
import { apiCall, bootstrap, createTest } from './fixtures.ts';

/** Authoring (issue 14) helpers: test trees made through the real API, console-only calls with the session. */

export const editorPath = (testId: string) => `/console/projects/${bootstrap().projectId}/tests/${testId}`;
/** The editor's steps tree. */
export const stepsList = (page: Page) => page.getByRole('list', { name: 'Steps', exact: true });
/** Adds a step from the palette. */
export const addStep = async (page: Page, action: string) =>
  page.getByRole('button', { name: `Add ${action}`, exact: true }).click();
/** A field of the selected step's form. */
export const stepField = (page: Page, name: string) =>
  page.getByRole('region', { name: /^Step:/ }).getByLabel(name, { exact: true });

export async function createDirectory(name: string, parentTestId?: string): Promise<string> {
  return createTest({ name, directory: true, ...(parentTestId ? { parentTestId } : {}) });
}

export async function testDetail(testId: string) {
  const response = await apiCall('GET', `/v1/tests/${testId}`);
  if (response.status !== 200) throw new Error(`test detail: ${response.status}`);
  return response.json;
}

/** A `/console/v1` call made with the signed-in page's session cookie (and the CSRF header). */
export async function consoleCall(
  page: Page,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  data?: unknown,
) {
  const response = await page.request.fetch(path, {
    method,
    headers: {
      'x-stepdeck-csrf': '1',
      ...(data === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(data === undefined ? {} : { data: JSON.stringify(data) }),
  });
  return { status: response.status(), json: await response.json() };
}

export async function createTag(page: Page, name: string): Promise<string> {
  const response = await consoleCall(page, 'POST', '/console/v1/tags', { name });
  if (response.status !== 201)
    throw new Error(`create tag: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json.data.id as string;
}

export async function createSchedule(page: Page, name: string, testIds: string[]) {
  const response = await consoleCall(page, 'POST', '/console/v1/schedules', {
    name,
    projectId: bootstrap().projectId,
    testIds,
    cron: '0 3 * * *',
    enabled: true,
  });
  if (response.status !== 201)
    throw new Error(`create schedule: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json.data.id as string;
}

export const testsPath = () => `/console/projects/${bootstrap().projectId}/tests`;
