import { z } from 'zod';
import { dataOf, isoTimestamp } from './common.ts';
import { leftOutTest } from './runs.ts';

/**
 * Shapes of the `/console/v1` routes the web console reads (session, projects, branches,
 * organization, schedules). The service's handlers return these; the console parses them.
 */
export const consoleRole = z.enum(['owner', 'admin', 'member']);
export type ConsoleRole = z.infer<typeof consoleRole>;

/** `POST` / `GET /console/v1/session`. */
export const consoleUser = z.object({
  id: z.string(),
  email: z.string(),
  role: consoleRole,
  organizationId: z.string(),
  /** One of the people who run the install (the console's Install area). */
  installAdmin: z.boolean().optional(),
});
export type ConsoleUser = z.infer<typeof consoleUser>;
export const consoleUserResponse = dataOf(consoleUser);

/** Body of `POST /console/v1/session`. */
export const signInBody = z.object({ email: z.string().min(1), password: z.string().min(1) });
export type SignInBody = z.infer<typeof signInBody>;

/** Item of `GET /console/v1/projects`. */
export const consoleProject = z.object({
  id: z.string(),
  name: z.string(),
  defaultBranchId: z.string(),
  createdAt: isoTimestamp,
});
export type ConsoleProject = z.infer<typeof consoleProject>;
export const consoleProjectsResponse = dataOf(z.array(consoleProject));

/** Item of `GET /console/v1/projects/:projectId/branches`. */
export const consoleBranch = z.object({
  id: z.string(),
  name: z.string(),
  sourceBranchId: z.string().nullable(),
  createdAt: isoTimestamp,
  isDefault: z.boolean(),
});
export type ConsoleBranch = z.infer<typeof consoleBranch>;
export const consoleBranchesResponse = dataOf(z.array(consoleBranch));

/** `GET /console/v1/organization`. */
export const consoleOrganization = z.object({
  id: z.string(),
  name: z.string(),
  subscriptionActive: z.boolean(),
  /** null: the install's default cap applies. */
  concurrencyCap: z.number().int().nullable(),
  createdAt: isoTimestamp,
  /**
   * The quotas that apply (additive; install admins set them): the most its runs store as
   * artifacts and the most email inboxes it holds, each with whether it is the install's default.
   */
  quotas: z
    .object({
      artifactQuotaBytes: z.number().int(),
      artifactQuotaIsDefault: z.boolean(),
      inboxLimit: z.number().int(),
      inboxLimitIsDefault: z.boolean(),
    })
    .optional(),
  /**
   * The browsers a run may name (additive): Firefox and WebKit only when their Playwright
   * builds are installed where the service runs; `reason` says how to install one.
   */
  browsers: z
    .array(
      z.object({
        name: z.enum(['chromium', 'firefox', 'webkit']),
        available: z.boolean(),
        reason: z.string().nullable(),
      }),
    )
    .optional(),
});
export type ConsoleOrganization = z.infer<typeof consoleOrganization>;
export const consoleOrganizationResponse = dataOf(consoleOrganization);

/** The fields of `GET /console/v1/schedules` items that the runs list's filter needs. */
export const consoleScheduleSummary = z.looseObject({ id: z.string(), name: z.string() });
export type ConsoleScheduleSummary = z.infer<typeof consoleScheduleSummary>;
export const consoleSchedulesResponse = dataOf(z.array(consoleScheduleSummary));

/**
 * `metadata` of a run as the service records it at trigger time: what was run and who
 * started it (an API key's name, a schedule's name or a console user's email).
 */
export const runMetadata = z.looseObject({
  target: z
    .looseObject({ type: z.string(), id: z.string().optional(), name: z.string().optional() })
    .optional(),
  trigger: z.looseObject({ type: z.string(), name: z.string().optional() }).optional(),
  /** The target's tests the run did not include (drafts, archived): the first 100 and the count. */
  leftOut: z.object({ count: z.number().int(), tests: z.array(leftOutTest) }).optional(),
  /** How many batches the runner split the run into, and why (written when it starts). */
  plan: z.object({ batches: z.number().int(), reason: z.string() }).optional(),
});
export type RunMetadata = z.infer<typeof runMetadata>;

/** `POST /console/v1/session`: the signed-in user (the session itself travels in the cookie). */
export const signInResponse = consoleUserResponse;
/** `PUT /console/v1/session/password`: the signed-in user changes their own password. */
export const passwordChangeBody = z.object({
  currentPassword: z.string({ error: 'currentPassword is required' }).min(1, 'currentPassword is required'),
  newPassword: z
    .string({ error: 'newPassword is required' })
    .min(8, 'newPassword must be at least 8 characters')
    .max(1024, 'newPassword must be at most 1024 characters'),
});
export type PasswordChange = z.infer<typeof passwordChangeBody>;
export const consoleProjectResponse = dataOf(consoleProject);
export const consoleBranchResponse = dataOf(consoleBranch);

/** Item of `GET /console/v1/api-keys`: never the key itself, only its prefix. */
export const consoleApiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  revoked: z.boolean(),
  revokedAt: isoTimestamp.nullable(),
  createdAt: isoTimestamp,
  /** When the key last authenticated a request, to the minute (written at most once a minute); null if never. */
  lastUsedAt: isoTimestamp.nullable(),
  /** Who created the key (their email is kept after they leave); null for internal keys. */
  createdBy: z.object({ userId: z.string().nullable(), email: z.string().nullable() }).nullable().optional(),
});
export const consoleApiKeysResponse = dataOf(z.array(consoleApiKey));
/** `POST /console/v1/api-keys`: the only answer that shows the key (`key`). */
export const createdApiKeyResponse = dataOf(
  z.object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    key: z.string(),
  }),
);

export const consoleTag = z.object({ id: z.string(), name: z.string() });
export const consoleTagResponse = dataOf(consoleTag);
export const consoleTagsResponse = dataOf(z.array(consoleTag));

/** Item of `GET /console/v1/users`. */
export const consoleUserRecord = z.object({
  id: z.string(),
  email: z.string(),
  role: consoleRole,
  createdAt: isoTimestamp,
});
export const consoleUsersResponse = dataOf(z.array(consoleUserRecord));
export const createdUserResponse = dataOf(z.object({ id: z.string(), email: z.string(), role: consoleRole }));

export const subscriptionResponse = dataOf(z.object({ active: z.boolean() }));
export const concurrencyCapResponse = dataOf(z.object({ concurrencyCap: z.number().int() }));
/** `POST /console/v1/organizations`: the new organization with its default project and branch. */
export const createdOrganizationResponse = dataOf(
  z.object({ id: z.string(), projectId: z.string(), branchId: z.string() }),
);
