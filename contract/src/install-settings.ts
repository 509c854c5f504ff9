import { z } from 'zod';
import { dataOf, isoTimestamp, uuid } from './common.ts';

/**
 * Shapes of `/console/v1/install/settings` (install admins only) and of an organization's
 * alert channels (`/console/v1/projects/:projectId/alert-channels`).
 */

const listOf = (name: string, max: number) =>
  z
    .array(z.string().trim().min(1, `${name} entries must not be empty`).max(200), {
      error: `${name} must be an array of strings`,
    })
    .max(max, `${name} must hold at most ${max} entries`);

/** How the relay's connection is secured: TLS from the start (465), STARTTLS, or neither (loopback relays). */
export const smtpSecurity = z.enum(['tls', 'starttls', 'none'], {
  error: 'security must be tls, starttls or none',
});

/** The alert SMTP relay as read back: the password is never returned, only whether one is stored. */
export const smtpRelayView = z.object({
  host: z.string(),
  port: z.number().int(),
  security: smtpSecurity,
  user: z.string().nullable(),
  passwordSet: z.boolean(),
  from: z.string(),
});
export type SmtpRelayView = z.infer<typeof smtpRelayView>;

/** `GET /console/v1/install/settings`: the install's bounds and the settings install admins edit. */
export const installSettings = z.object({
  runnerSlots: z.number().int(),
  organizationDeleteGraceDays: z.number().int(),
  /** IPs/CIDRs webhooks and chat alerts may reach although private; in effect in production too. */
  webhookAllowedTargets: z.array(z.string()),
  /** The environment's `WEBHOOK_ALLOWED_TARGETS` (read-only here), in effect besides the list above. */
  environmentWebhookAllowedTargets: z.array(z.string()),
  /** Egress rules added to `RUNNER_EGRESS_DENY`/`RUNNER_EGRESS_ALLOW` for the runs that start next. */
  runnerEgress: z.object({ deny: z.array(z.string()), allow: z.array(z.string()) }),
  environmentRunnerEgress: z.object({ deny: z.array(z.string()), allow: z.array(z.string()) }),
  /** Null until an install admin sets one: email alerts are refused without it. */
  smtpRelay: smtpRelayView.nullable(),
  updatedAt: isoTimestamp.nullable(),
  updatedBy: z.string().nullable(),
});
export type InstallSettings = z.infer<typeof installSettings>;
export const installSettingsResponse = dataOf(installSettings);

export const smtpRelayBody = z.object({
  host: z
    .string()
    .trim()
    .min(1, 'smtpRelay.host must not be empty')
    .max(253, 'smtpRelay.host must be at most 253 characters'),
  port: z
    .number({ error: 'smtpRelay.port must be a number' })
    .int('smtpRelay.port must be an integer')
    .min(1, 'smtpRelay.port must be between 1 and 65535')
    .max(65535, 'smtpRelay.port must be between 1 and 65535'),
  security: smtpSecurity,
  user: z.string().trim().max(256).nullable().optional(),
  /** Omitted: the stored password is kept; null: removed; a string: replaced. */
  password: z.string().max(1024).nullable().optional(),
  from: z.email({ error: 'smtpRelay.from must be an email address' }),
});
export type SmtpRelayBody = z.infer<typeof smtpRelayBody>;

/** `PUT /console/v1/install/settings`: each field present replaces that setting; absent ones stay. */
export const installSettingsBody = z
  .object({
    webhookAllowedTargets: listOf('webhookAllowedTargets', 100).optional(),
    runnerEgress: z
      .object({ deny: listOf('runnerEgress.deny', 200), allow: listOf('runnerEgress.allow', 200) })
      .optional(),
    /** Null removes the relay. */
    smtpRelay: smtpRelayBody.nullable().optional(),
  })
  .strict();
export type InstallSettingsBody = z.infer<typeof installSettingsBody>;

export const alertChannelKind = z.enum(['slack', 'teams', 'email'], {
  error: 'kind must be slack, teams or email',
});
export type AlertChannelKind = z.infer<typeof alertChannelKind>;

/** An alert channel; `url` is masked (scheme, host, first path segment) for members. */
export const alertChannel = z.object({
  id: z.string(),
  projectId: z.string(),
  /** Only this schedule's runs; null: every run of the project. */
  scheduleId: z.string().nullable(),
  name: z.string(),
  kind: alertChannelKind,
  url: z.string().nullable(),
  recipients: z.array(z.string()),
  onFailed: z.boolean(),
  onRecovered: z.boolean(),
  /** Alert on every failed run; otherwise only on the first failure after a pass. */
  everyFailure: z.boolean(),
  enabled: z.boolean(),
  lastSentAt: isoTimestamp.nullable(),
  lastError: z.string().nullable(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type AlertChannel = z.infer<typeof alertChannel>;
export const alertChannelResponse = dataOf(alertChannel);
export const alertChannelListResponse = dataOf(z.array(alertChannel));

const alertChannelFields = {
  name: z.string().trim().min(1, 'name must not be empty').max(128, 'name must be at most 128 characters'),
  scheduleId: uuid.nullable().optional(),
  url: z.string().trim().max(2048, 'url must be at most 2048 characters').nullable().optional(),
  recipients: z
    .array(z.email({ error: 'recipients must be email addresses' }))
    .max(50, 'recipients must hold at most 50 addresses')
    .optional(),
  onFailed: z.boolean().optional(),
  onRecovered: z.boolean().optional(),
  everyFailure: z.boolean().optional(),
  enabled: z.boolean().optional(),
};
export const alertChannelCreateBody = z.object({ kind: alertChannelKind, ...alertChannelFields }).strict();
export type AlertChannelCreate = z.infer<typeof alertChannelCreateBody>;
export const alertChannelUpdateBody = z.object(alertChannelFields).partial().strict();
export type AlertChannelUpdate = z.infer<typeof alertChannelUpdateBody>;
/** `POST …/alert-channels/:id/test`: a test message was sent (or the error that stopped it). */
export const alertChannelTestResponse = dataOf(z.object({ sent: z.boolean(), error: z.string().nullable() }));

/**
 * One alert a channel owed for a run, and how its attempts went: `pending` (retrying; due at
 * `nextAttemptAt`), `succeeded` or `failed` (attempts exhausted).
 */
export const alertDelivery = z.object({
  id: z.string(),
  channelId: z.string(),
  runId: z.string(),
  event: z.enum(['failed', 'recovered']),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  nextAttemptAt: isoTimestamp.nullable(),
  lastAttemptAt: isoTimestamp.nullable(),
  completedAt: isoTimestamp.nullable(),
  createdAt: isoTimestamp,
});
export type AlertDelivery = z.infer<typeof alertDelivery>;
/** `GET …/alert-channels/:id/deliveries`: the channel's latest deliveries, newest first. */
export const alertDeliveryListResponse = dataOf(z.array(alertDelivery));
