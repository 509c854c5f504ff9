import { z } from 'zod';
import { dataOf, jsonObject } from './common.ts';
import { triageClass } from './history.ts';
import { leftOutTest } from './runs.ts';
import { visualChangeSummary } from './visual.ts';

/**
 * Response shapes of the organization-level resources (inboxes, schedules, webhooks) and of
 * the console. Objects are closed (`z.object`): the service serializes through these schemas,
 * so a field the service returns is listed here or never reaches the client. Only user-supplied
 * JSON (`config`, `customData`, `custom`) is an open map.
 */

export const emailInbox = z.object({
  id: z.string(),
  address: z.string(),
  name: z.string().nullable(),
  createdAt: z.string(),
  messageCount: z.number().int(),
});
export const emailInboxResponse = dataOf(emailInbox);
export const emailInboxListResponse = dataOf(z.array(emailInbox));
export const emailInboxLimitsResponse = dataOf(
  z.object({
    maxPerOrg: z.number().int(),
    maxMessages: z.number().int(),
    messageRetentionHours: z.number().int(),
    bodyMaxBytes: z.number().int(),
  }),
);
/**
 * `GET /console/v1/email-inboxes/limits`: the limits, and where the service takes mail (the
 * console says how to send to an inbox). `port` is null while the SMTP listener is not running.
 */
export const consoleEmailInboxLimitsResponse = dataOf(
  emailInboxLimitsResponse.shape.data.extend({
    smtp: z.object({ host: z.string(), port: z.number().int().nullable() }),
  }),
);
const emailMessageFields = {
  id: z.string(),
  fromAddress: z.string(),
  subject: z.string(),
  bodyText: z.string(),
  bodyHtml: z.string(),
  receivedAt: z.string(),
};
export const emailMessageListResponse = dataOf(
  z.array(z.object({ ...emailMessageFields, urls: z.array(z.string()) })),
);
/** A single message: no `urls`, with its inbox, organization and SMTP message ids. */
const emailMessage = z.object({
  ...emailMessageFields,
  inboxId: z.string(),
  organizationId: z.string(),
  sesMessageId: z.string(),
  createdAt: z.string(),
});
export const emailMessageResponse = dataOf(emailMessage);
/**
 * The console's message viewer: the message plus its raw header block as received (up to
 * 64 KB of UTF-8, cut beyond); null for messages stored before headers were kept.
 */
export const consoleEmailMessageResponse = dataOf(emailMessage.extend({ rawHeaders: z.string().nullable() }));

/** A schedule (the spec leaves its fields open; these are the service's). */
export const schedule = z.object({
  id: z.string(),
  organizationId: z.string(),
  projectId: z.string(),
  branchId: z.string(),
  name: z.string(),
  /** Exactly one of `testIds` and `tagId` is set. */
  testIds: z.array(z.string()).nullable(),
  tagId: z.string().nullable(),
  cron: z.string(),
  timezone: z.string(),
  /** Run configuration overrides (the `config` object of remote runs). */
  config: jsonObject.nullable(),
  /** The config preset the schedule names; null for none. */
  presetId: z.string().nullable().optional(),
  /** The environment the schedule's runs use, by name (additive); null for none. */
  environment: z.string().nullable().optional(),
  enabled: z.boolean(),
  scheduleType: z.string(),
  nextRunAt: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  lastRunId: z.string().nullable(),
  lastSkippedAt: z.string().nullable(),
  /** Why the last firing was skipped (a lapsed subscription, the previous run still active). */
  lastSkipReason: z.string().nullable().optional(),
  skippedCount: z.number().int(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const scheduleResponse = dataOf(schedule);
export const scheduleListResponse = dataOf(z.array(schedule));
export const scheduleTriggerResponse = dataOf(
  z.object({
    runId: z.string(),
    status: z.string(),
    totalTests: z.number().int().optional(),
    message: z.string().optional(),
  }),
);

export const webhookEvent = z.enum(['run.completed', 'run.failed']);

/** A run's failures in a webhook body: new, known on the base branch, flaky or quarantined. */
export const webhookTriage = z.object({
  baseBranch: z.string().nullable(),
  counts: z.object({
    new: z.number().int(),
    known: z.number().int(),
    flaky: z.number().int(),
    quarantined: z.number().int(),
  }),
  failures: z.array(z.object({ testId: z.string(), name: z.string(), triage: triageClass })),
});
export type WebhookTriage = z.infer<typeof webhookTriage>;

/** The body of a webhook delivery (spec: Events, Body), also the sample payload's. */
export const webhookBody = z.object({
  event: webhookEvent,
  deliveryId: z.string(),
  timestamp: z.string(),
  run: z.object({
    id: z.string(),
    name: z.string(),
    status: z.enum(['completed', 'failed']),
    url: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string(),
    durationMs: z.number().int(),
    trigger: z.union([
      z.object({ type: z.literal('schedule'), schedule: z.string() }),
      z.object({ type: z.literal('apiKey'), name: z.string() }),
      z.object({ type: z.literal('manual'), email: z.string() }),
    ]),
    project: z.object({ id: z.string(), name: z.string() }),
    branch: z.object({ id: z.string(), name: z.string() }),
    target: z.object({ type: z.enum(['test', 'directory', 'tag']), id: z.string(), name: z.string() }),
    /** The environment the run used, by name (additive); absent for none. */
    environment: z.string().optional(),
    stats: z.object({
      passed: z.number().int(),
      failed: z.number().int(),
      skipped: z.number().int(),
      total: z.number().int(),
    }),
    tests: z.array(
      z.object({
        name: z.string(),
        status: z.string(),
        durationMs: z.number().int(),
        errorMessage: z.string().nullable(),
        errorLocation: z.string().nullable(),
      }),
    ),
    /**
     * Screenshots that are not their baseline; review them at `url` + `/visual`. Without
     * `imageUrl`: only the run detail presigns pictures, each time it is read.
     */
    visualChanges: z.array(visualChangeSummary.omit({ imageUrl: true })).optional(),
    /**
     * The target's draft and archived tests the run left out (additive): the count and at most
     * 100 by name; absent when none was left out.
     */
    leftOut: z.object({ count: z.number().int(), tests: z.array(leftOutTest) }).optional(),
    /**
     * Each failure classed against the base branch (additive; as `GET
     * /v1/test-runs/:runId/triage` when the delivery was recorded); absent without failures.
     */
    triage: webhookTriage.optional(),
  }),
  /** The webhook's custom data, sent unchanged; absent when it has none. */
  custom: jsonObject.optional(),
});
export type WebhookBody = z.infer<typeof webhookBody>;
export const webhookSamplePayloadResponse = dataOf(webhookBody);
export const webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  customData: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const webhookResponse = dataOf(webhook);
/** `POST /console/v1/webhooks`: the only answer that shows the signing secret, with the rotation's. */
export const createdWebhookResponse = dataOf(
  z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    secret: z.string(),
  }),
);
export const rotatedSecretResponse = dataOf(z.object({ id: z.string(), secret: z.string() }));
export const webhookListResponse = dataOf(z.array(webhook));

/** A delivery record: status, attempts, last response and the exact body sent. */
export const webhookDelivery = z.object({
  id: z.string(),
  webhookId: z.string(),
  /** `run.completed` or `run.failed`. */
  event: z.string(),
  runId: z.string(),
  /** `pending` (in progress), `succeeded` or `failed` (after three failed attempts). */
  status: z.string(),
  attempts: z.number().int(),
  lastResponseCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  /** The exact bytes sent, as text (a JSON document of the `webhookBody` shape). */
  body: z.string(),
  nextAttemptAt: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const webhookDeliveryListResponse = dataOf(z.array(webhookDelivery));
export const webhookDeliveryResponse = dataOf(webhookDelivery);

/** A project secret: its name and dates, never its value. */
export const projectSecret = z.object({ name: z.string(), createdAt: z.string(), updatedAt: z.string() });
export const projectSecretResponse = dataOf(projectSecret);
export const projectSecretListResponse = dataOf(z.array(projectSecret));
