import { z } from 'zod';
import { auditLogQuery } from './admin.ts';
import { dataOf, isoTimestamp, uuid } from './common.ts';

/**
 * Shapes of `/console/v1/install/...`: what the people who run the install (install admins)
 * see and change across organizations: the organizations, their subscription and limits, the
 * install admins themselves and the install's audit log.
 */

const organizationName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters');

/** Item of `GET /console/v1/install/organizations`. */
export const installOrganization = z.object({
  id: z.string(),
  name: z.string(),
  subscriptionActive: z.boolean(),
  /** The parallel runs the organization may hold; at most the install's runner slots. */
  concurrencyCap: z.number().int(),
  /** Set while suspended: the organization's keys and sessions are refused, its schedules do not fire. */
  suspendedAt: isoTimestamp.nullable(),
  /** Set once deleted: the organization is purged after this time unless restored. */
  deleteAfter: isoTimestamp.nullable(),
  /** The install's own organization (never suspended or deleted). */
  isInstallOrganization: z.boolean(),
  userCount: z.number().int(),
  createdAt: isoTimestamp,
  /** The most its runs store as artifacts, in bytes; null: the install's default (`defaults`). */
  artifactQuotaBytes: z.number().int().nullable(),
  /** The most email inboxes it holds; null: the install's default (`defaults`). */
  inboxLimit: z.number().int().nullable(),
  /** What applies while a quota is unset: `ORG_ARTIFACTS_MAX_BYTES` and the spec's inbox limit. */
  defaults: z.object({ artifactQuotaBytes: z.number().int(), inboxLimit: z.number().int() }),
});
export type InstallOrganization = z.infer<typeof installOrganization>;
export const installOrganizationResponse = dataOf(installOrganization);
export const installOrganizationsResponse = dataOf(z.array(installOrganization));

export const installOrganizationCreateBody = z.object({
  name: organizationName,
  ownerEmail: z.email({ error: 'ownerEmail must be an email address' }),
  ownerPassword: z.string().min(8, 'ownerPassword must be at least 8 characters'),
});
export type InstallOrganizationCreate = z.infer<typeof installOrganizationCreateBody>;

export const subscriptionBody = z.object({ active: z.boolean({ error: 'active must be a boolean' }) });
export type SubscriptionBody = z.infer<typeof subscriptionBody>;
const MiB = 1024 * 1024;
const TiB = 1024 * 1024 * MiB;

/**
 * An organization's limits; each field is optional and one left out stays as it is. The cap's
 * upper bound is the install's runner slots, checked by the service (400 naming it). A quota
 * of null goes back to the install's default.
 */
export const limitsBody = z
  .object({
    concurrencyCap: z
      .number({ error: 'concurrencyCap must be a number' })
      .int('concurrencyCap must be an integer')
      .min(1, 'concurrencyCap must be at least 1')
      .max(64, 'concurrencyCap must be at most 64')
      .optional(),
    artifactQuotaBytes: z
      .number({ error: 'artifactQuotaBytes must be a number of bytes, or null for the default' })
      .int('artifactQuotaBytes must be a whole number of bytes')
      .min(MiB, `artifactQuotaBytes must be at least 1 MiB (${MiB})`)
      .max(TiB, `artifactQuotaBytes must be at most 1 TiB (${TiB})`)
      .nullable()
      .optional(),
    inboxLimit: z
      .number({ error: 'inboxLimit must be a number, or null for the default' })
      .int('inboxLimit must be an integer')
      .min(1, 'inboxLimit must be at least 1')
      .max(1000, 'inboxLimit must be at most 1000')
      .nullable()
      .optional(),
  })
  .refine(
    (body) =>
      body.concurrencyCap !== undefined ||
      body.artifactQuotaBytes !== undefined ||
      body.inboxLimit !== undefined,
    'give at least one of concurrencyCap, artifactQuotaBytes, inboxLimit',
  );
export type LimitsBody = z.infer<typeof limitsBody>;
/** `PUT .../limits`: the organization's limits after the change (null quotas: the install's default). */
export const organizationLimitsResponse = dataOf(
  z.object({
    concurrencyCap: z.number().int(),
    artifactQuotaBytes: z.number().int().nullable(),
    inboxLimit: z.number().int().nullable(),
  }),
);
export const suspensionBody = z.object({ suspended: z.boolean({ error: 'suspended must be a boolean' }) });
export type SuspensionBody = z.infer<typeof suspensionBody>;

/** Item of `GET /console/v1/install/admins`. */
export const installAdmin = z.object({
  userId: z.string(),
  email: z.string(),
  organizationId: z.string(),
  organizationName: z.string(),
  /** The install admin who granted the role; null for the bootstrap admin. */
  grantedBy: z.string().nullable(),
  createdAt: isoTimestamp,
});
export type InstallAdmin = z.infer<typeof installAdmin>;
export const installAdminResponse = dataOf(installAdmin);
export const installAdminsResponse = dataOf(z.array(installAdmin));
export const installAdminGrantBody = z.object({
  email: z.email({ error: 'email must be an email address' }),
});

/** Filters of `GET /console/v1/install/audit-log`: the organization's log, or every organization's. */
export const installAuditLogQuery = auditLogQuery.extend({ organizationId: uuid.optional() });
export type InstallAuditLogQuery = z.input<typeof installAuditLogQuery>;
