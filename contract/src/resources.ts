import { z } from 'zod';
import { dataOf } from './common.ts';

/**
 * Response shapes of the organization-level resources (inboxes, schedules, webhooks) and of
 * the console. Objects are open (`looseObject`): the fields named here are guaranteed, and a
 * field added later reaches clients without a contract change.
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
const emailMessageFields = {
  id: z.string(),
  fromAddress: z.string(),
  subject: z.string(),
  bodyText: z.string(),
  bodyHtml: z.string(),
  receivedAt: z.string(),
};
export const emailMessageListResponse = dataOf(
  z.array(z.looseObject({ ...emailMessageFields, urls: z.array(z.string()) })),
);
export const emailMessageResponse = dataOf(z.looseObject(emailMessageFields));

export const schedule = z.looseObject({ id: z.string(), name: z.string() });
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

export const webhookSamplePayloadResponse = dataOf(z.looseObject({}));
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
export const webhookDeliveryListResponse = dataOf(z.array(z.looseObject({ id: z.string() })));
export const webhookDeliveryResponse = dataOf(z.looseObject({ id: z.string() }));

/** A console record: every console resource has an id. */
export const consoleRecord = z.looseObject({ id: z.string() });
export const consoleRecordResponse = dataOf(consoleRecord);
export const consoleRecordListResponse = dataOf(z.array(consoleRecord));
/** Console payloads that are not records (session, organization, subscription). */
export const consoleObjectResponse = dataOf(z.looseObject({}));
export const consoleObjectListResponse = dataOf(z.array(z.looseObject({})));
/** A project secret: its name and dates, never its value. */
export const projectSecretResponse = dataOf(z.looseObject({ name: z.string() }));
