import { z } from 'zod';
import { dataOf, isoTimestamp } from './common.ts';

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
  concurrencyCap: z.number().int(),
  createdAt: isoTimestamp,
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
});
export type RunMetadata = z.infer<typeof runMetadata>;
