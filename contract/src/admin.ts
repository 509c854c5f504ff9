import { z } from 'zod';
import { dataOf, isoTimestamp, jsonObject, pagination, queryInteger } from './common.ts';
import { consoleRole } from './console.ts';
import { environmentName } from './environments.ts';
import { runConfig } from './run-config.ts';

/**
 * Shapes of the console's administration resources (config presets, audit log, users and
 * roles): the service's routes validate and serialise with these; the console parses them.
 */

export const presetName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters');

/** Item of `GET /console/v1/projects/:projectId/presets`. */
export const preset = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  /** The run configuration as stored (validated with `runConfig` on the way in). */
  config: jsonObject,
  /** The environment the preset picks, by name (additive); null for none. */
  environment: z.string().nullable().optional(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type Preset = z.infer<typeof preset>;
export const presetResponse = dataOf(preset);
export const presetListResponse = dataOf(z.array(preset));
export const presetCreateBody = z.object({
  name: presetName,
  config: runConfig,
  environment: environmentName.nullable().optional(),
});
export type PresetCreateBody = z.infer<typeof presetCreateBody>;
export const presetUpdateBody = z.object({
  name: presetName.optional(),
  config: runConfig.optional(),
  environment: environmentName.nullable().optional(),
});
export type PresetUpdateBody = z.infer<typeof presetUpdateBody>;

/** One entry of `GET /console/v1/audit-log`: who changed what, when, and how it ended. */
export const auditEntry = z.object({
  id: z.string(),
  createdAt: isoTimestamp,
  actor: z.object({
    type: z.enum(['user', 'apiKey']),
    id: z.string(),
    /** A user's email, or an API key's name and its 8-character prefix. */
    label: z.string(),
  }),
  /** `METHOD route`. */
  action: z.string(),
  resourceType: z.string(),
  resourceId: z.string().nullable(),
  organizationId: z.string(),
  projectId: z.string().nullable(),
  /** The response status; null when the outcome is unknown (the process stopped mid-request). */
  status: z.number().int().nullable(),
  ip: z.string(),
  userAgent: z.string(),
  /** What the request did beyond its route, in words (`API keys revoked: 2`); null for most. */
  detail: z.string().nullable().optional(),
});
export type AuditEntry = z.infer<typeof auditEntry>;
export const auditLogResponse = z.object({ data: z.array(auditEntry), pagination });
export type AuditLogResponse = z.infer<typeof auditLogResponse>;

/** Filters of `GET /console/v1/audit-log` (and of its export). */
export const auditLogQuery = z.object({
  actor: z.string().trim().max(256).optional(),
  action: z.string().trim().max(256).optional(),
  resource: z.string().trim().max(256).optional(),
  from: z.iso.datetime({ offset: true, error: 'from must be an ISO 8601 date-time' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'to must be an ISO 8601 date-time' }).optional(),
  page: queryInteger('page', 1).default(1),
  limit: queryInteger('limit', 1, 100).default(50),
});
export type AuditLogQuery = z.input<typeof auditLogQuery>;

/** Item of `GET /console/v1/users`. */
export const consoleMember = z.object({
  id: z.string(),
  email: z.string(),
  role: consoleRole,
  createdAt: isoTimestamp,
});
export type ConsoleMember = z.infer<typeof consoleMember>;
export const consoleMemberResponse = dataOf(consoleMember);
export const consoleMembersResponse = dataOf(z.array(consoleMember));
/** A demotion revokes the user's API keys unless `revokeKeys` is false. */
export const roleChangeBody = z.object({
  role: consoleRole,
  revokeKeys: z.boolean({ error: 'revokeKeys must be a boolean' }).optional(),
});
/** `DELETE /console/v1/users/:id`: the user's API keys are revoked unless `revokeKeys=false`. */
export const userRemovalQuery = z.object({
  revokeKeys: z.enum(['true', 'false'], { error: 'revokeKeys must be true or false' }).optional(),
});

/** Item of `GET /console/v1/projects/:projectId/secrets`: the name only, never the value. */
export const projectSecretName = z.looseObject({ name: z.string() });
export const projectSecretsResponse = dataOf(z.array(projectSecretName));

/** Item of `GET /console/v1/webhooks/:id/deliveries`, with the exact body sent. */
export const webhookDeliveryView = z.looseObject({
  id: z.string(),
  event: z.string(),
  runId: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  lastResponseCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  body: z.string(),
  createdAt: isoTimestamp,
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryView>;
export const webhookDeliveryViewsResponse = dataOf(z.array(webhookDeliveryView));

/** `GET /console/v1/schedules/preview`: when a cron expression fires next, in its time zone. */
export const cronPreviewQuery = z.object({
  cron: z.string().trim().min(1, 'cron must not be empty').max(256),
  timezone: z.string().trim().min(1).max(64).default('UTC'),
});
export const cronPreviewResponse = dataOf(z.object({ nextRuns: z.array(isoTimestamp) }));

/** Item of `GET /console/v1/schedules` as the schedules page shows it. */
export const consoleSchedule = z.looseObject({
  id: z.string(),
  name: z.string(),
  cron: z.string(),
  timezone: z.string(),
  enabled: z.boolean(),
  testIds: z.array(z.string()).nullable(),
  tagId: z.string().nullable(),
  presetId: z.string().nullable().optional(),
  /** The environment its runs use, by name (additive). */
  environment: z.string().nullable().optional(),
  nextRunAt: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  lastRunId: z.string().nullable(),
});
export type ConsoleSchedule = z.infer<typeof consoleSchedule>;
export const consoleScheduleListResponse = dataOf(z.array(consoleSchedule));
