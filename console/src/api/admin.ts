// Administration beyond the resources' lists: inbox viewer, webhook samples/editing, schedule runs, projects.
import {
  type AuditLogQuery,
  auditLogResponse,
  consoleApiKeysResponse,
  consoleBranchesResponse,
  consoleBranchResponse,
  consoleEmailInboxLimitsResponse,
  consoleEmailMessageResponse,
  consoleMemberResponse,
  consoleMembersResponse,
  consoleOrganizationResponse,
  consoleProjectResponse,
  consoleProjectsResponse,
  consoleScheduleListResponse,
  consoleTagsResponse,
  createdApiKeyResponse,
  createdWebhookResponse,
  cronPreviewResponse,
  emailInboxListResponse,
  emailInboxResponse,
  emailMessageListResponse,
  type PresetCreateBody,
  presetListResponse,
  presetResponse,
  projectSecretsResponse,
  remoteRunResponse,
  rotatedSecretResponse,
  scheduleTriggerResponse,
  testRunListResponse,
  webhookDeliveryViewsResponse,
  webhookListResponse,
  webhookResponse,
  webhookSamplePayloadResponse,
} from '@stepdeck/contract';
import { z } from 'zod';
import type { ProjectScope } from './client.ts';
import { buildUrl, request } from './client.ts';

const none = z.object({ data: z.null() });

/** The administration calls, typed by the contract's schemas. */
export const adminApi = {
  apiKeys: () => request('/console/v1/api-keys', consoleApiKeysResponse),
  createApiKey: (body: { name: string; scopes: string[] }) =>
    request('/console/v1/api-keys', createdApiKeyResponse, { method: 'POST', body }),
  revokeApiKey: (id: string) => request(`/console/v1/api-keys/${id}/revoke`, none, { method: 'POST' }),
  deleteApiKey: (id: string) => request(`/console/v1/api-keys/${id}`, none, { method: 'DELETE' }),

  presets: (projectId: string) => request(`/console/v1/projects/${projectId}/presets`, presetListResponse),
  createPreset: (projectId: string, body: PresetCreateBody) =>
    request(`/console/v1/projects/${projectId}/presets`, presetResponse, { method: 'POST', body }),
  deletePreset: (projectId: string, presetId: string) =>
    request(`/console/v1/projects/${projectId}/presets/${presetId}`, none, { method: 'DELETE' }),

  users: () => request('/console/v1/users', consoleMembersResponse),
  createUser: (body: { email: string; password: string; role: string }) =>
    request('/console/v1/users', z.object({ data: z.looseObject({ id: z.string() }) }), {
      method: 'POST',
      body,
    }),
  changeRole: (id: string, role: string) =>
    request(`/console/v1/users/${id}`, consoleMemberResponse, { method: 'PUT', body: { role } }),
  removeUser: (id: string) => request(`/console/v1/users/${id}`, none, { method: 'DELETE' }),

  organization: () => request('/console/v1/organization', consoleOrganizationResponse),
  setSubscription: (active: boolean) =>
    request('/console/v1/subscription', z.object({ data: z.looseObject({}) }), {
      method: 'PUT',
      body: { active },
    }),
  setConcurrencyCap: (concurrencyCap: number) =>
    request('/console/v1/organization/limits', z.object({ data: z.looseObject({}) }), {
      method: 'PUT',
      body: { concurrencyCap },
    }),

  secrets: (projectId: string) =>
    request(`/console/v1/projects/${projectId}/secrets`, projectSecretsResponse),
  setSecret: (projectId: string, name: string, value: string) =>
    request(`/console/v1/projects/${projectId}/secrets`, z.object({ data: z.looseObject({}) }), {
      method: 'POST',
      body: { name, value },
    }),
  deleteSecret: (projectId: string, name: string) =>
    request(`/console/v1/projects/${projectId}/secrets/${encodeURIComponent(name)}`, none, {
      method: 'DELETE',
    }),

  tags: () => request('/console/v1/tags', consoleTagsResponse),
  createTag: (name: string) =>
    request('/console/v1/tags', z.object({ data: z.looseObject({}) }), { method: 'POST', body: { name } }),
  deleteTag: (id: string) => request(`/console/v1/tags/${id}`, none, { method: 'DELETE' }),

  webhooks: () => request('/console/v1/webhooks', webhookListResponse),
  createWebhook: (body: { url: string; events: string[]; customData: Record<string, unknown> | null }) =>
    request('/console/v1/webhooks', createdWebhookResponse, { method: 'POST', body }),
  setWebhookEnabled: (id: string, enabled: boolean) =>
    request(`/console/v1/webhooks/${id}/${enabled ? 'enable' : 'disable'}`, webhookResponse, {
      method: 'POST',
    }),
  rotateWebhookSecret: (id: string) =>
    request(`/console/v1/webhooks/${id}/rotate-secret`, rotatedSecretResponse, { method: 'POST' }),
  deleteWebhook: (id: string) => request(`/console/v1/webhooks/${id}`, none, { method: 'DELETE' }),
  deliveries: (id: string) => request(`/console/v1/webhooks/${id}/deliveries`, webhookDeliveryViewsResponse),
  retryDelivery: (id: string, deliveryId: string) =>
    request(
      `/console/v1/webhooks/${id}/deliveries/${deliveryId}/retry`,
      z.object({ data: z.looseObject({}) }),
      {
        method: 'POST',
      },
    ),

  schedules: (projectId: string) =>
    request('/console/v1/schedules', consoleScheduleListResponse, { query: { projectId } }),
  cronPreview: (cron: string, timezone: string) =>
    request('/console/v1/schedules/preview', cronPreviewResponse, { query: { cron, timezone } }),
  createSchedule: (body: Record<string, unknown>) =>
    request('/console/v1/schedules', z.object({ data: z.looseObject({ id: z.string() }) }), {
      method: 'POST',
      body,
    }),
  updateSchedule: (id: string, body: Record<string, unknown>) =>
    request(`/console/v1/schedules/${id}`, z.object({ data: z.looseObject({ id: z.string() }) }), {
      method: 'PUT',
      body,
    }),
  deleteSchedule: (id: string) => request(`/console/v1/schedules/${id}`, none, { method: 'DELETE' }),

  // E-mail inboxes and their messages; projects.
  inboxes: () => request('/console/v1/email-inboxes', emailInboxListResponse),
  inboxLimits: () => request('/console/v1/email-inboxes/limits', consoleEmailInboxLimitsResponse),
  createInbox: (name: string) =>
    request('/console/v1/email-inboxes', emailInboxResponse, {
      method: 'POST',
      body: name ? { name } : {},
    }),
  deleteInbox: (inboxId: string) =>
    request(`/console/v1/email-inboxes/${inboxId}`, none, { method: 'DELETE' }),
  messages: (inboxId: string) =>
    request(`/console/v1/email-inboxes/${inboxId}/messages`, emailMessageListResponse),
  // Inbox viewer: one message with its raw header block.
  message: (inboxId: string, messageId: string) =>
    request(`/console/v1/email-inboxes/${inboxId}/messages/${messageId}`, consoleEmailMessageResponse),
  deleteMessage: (inboxId: string, messageId: string) =>
    request(`/console/v1/email-inboxes/${inboxId}/messages/${messageId}`, none, { method: 'DELETE' }),
  updateWebhook: (
    id: string,
    body: { url: string; events: string[]; customData: Record<string, unknown> | null },
  ) => request(`/console/v1/webhooks/${id}`, webhookResponse, { method: 'PUT', body }),
  samplePayload: (event: string) =>
    request('/console/v1/webhooks/sample-payload', webhookSamplePayloadResponse, { query: { event } }),
  triggerSchedule: (id: string) =>
    request(`/console/v1/schedules/${id}/trigger`, scheduleTriggerResponse, { method: 'POST' }),
  scheduleRuns: (scope: ProjectScope, scheduleId: string) =>
    request('/v1/test-runs', testRunListResponse, { scope, query: { scheduleId, limit: 5 } }),
  /** A run of one test (or directory) or of a tag, with a preset under the optional config. */
  startRun: (
    scope: ProjectScope,
    target: { testId: string } | { tagId: string },
    presetId: string | undefined,
    config?: unknown,
    environment?: string,
  ) => {
    const body = {
      ...(presetId ? { presetId } : {}),
      ...(config ? { config } : {}),
      ...(environment ? { environment } : {}),
    };
    return 'testId' in target
      ? request(`/v1/tests/${target.testId}/remote-run`, remoteRunResponse, { scope, method: 'POST', body })
      : request('/v1/tests/remote-run', remoteRunResponse, {
          scope,
          method: 'POST',
          body: { ...body, tagId: target.tagId },
        });
  },
  projects: () => request('/console/v1/projects', consoleProjectsResponse),
  createProject: (name: string) =>
    request('/console/v1/projects', consoleProjectResponse, { method: 'POST', body: { name } }),
  branches: (projectId: string) =>
    request(`/console/v1/projects/${projectId}/branches`, consoleBranchesResponse),
  createBranch: (projectId: string, body: { name: string; sourceBranchId?: string }) =>
    request(`/console/v1/projects/${projectId}/branches`, consoleBranchResponse, { method: 'POST', body }),

  auditLog: (query: AuditLogQuery) =>
    request('/console/v1/audit-log', auditLogResponse, { query: query as Record<string, string | number> }),
};

/** Download address of the audit log with the same filters. */
export const auditExportUrl = (format: 'csv' | 'json', query: AuditLogQuery) =>
  buildUrl('/console/v1/audit-log/export', {
    ...(query as Record<string, string>),
    format,
    page: undefined,
    limit: undefined,
  });
