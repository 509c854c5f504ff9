import {
  type EnvironmentCreateBody,
  type EnvironmentUpdateBody,
  environmentListResponse,
  environmentResponse,
} from '@stepdeck/contract';
import { z } from 'zod';
import { request } from './client.ts';

const none = z.object({ data: z.null() });
const base = (projectId: string) => `/console/v1/projects/${projectId}/environments`;

/** Environments of a project: base URL, variables and write-only secrets (console sessions only). */
export const environmentsApi = {
  list: (projectId: string) => request(base(projectId), environmentListResponse),
  create: (projectId: string, body: EnvironmentCreateBody) =>
    request(base(projectId), environmentResponse, { method: 'POST', body }),
  update: (projectId: string, environmentId: string, body: EnvironmentUpdateBody) =>
    request(`${base(projectId)}/${environmentId}`, environmentResponse, { method: 'PUT', body }),
  remove: (projectId: string, environmentId: string) =>
    request(`${base(projectId)}/${environmentId}`, none, { method: 'DELETE' }),
};

export const environmentsKey = (projectId: string) => ['environments', projectId] as const;
