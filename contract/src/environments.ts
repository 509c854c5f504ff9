import { z } from 'zod';
import { dataOf, isoTimestamp } from './common.ts';

/**
 * Environments: per project, named sets of base URL, variables and secrets (`staging`,
 * `production`). A run, a schedule or a preset picks one by name; `{{env.NAME}}` in a step
 * reads its variable NAME and `{{secrets.X}}` looks in its secrets before the project's.
 */

/** How runs, schedules, presets, the action and the CLI name an environment. */
export const environmentName = z
  .string({ error: 'environment must be a string' })
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,31}$/,
    'environment must be 1 to 32 lowercase letters, digits, "-" or "_", starting with a letter or digit',
  );

/** A variable or secret name: usable as `{{env.NAME}}` / `{{secrets.NAME}}` and in an environment variable. */
const entryName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const entryNameRule = 'must be letters, digits and underscores, not starting with a digit (at most 128)';

/** At most this many variables, and as many secrets, per environment. */
export const environmentEntriesMax = 100;

const httpUrl = z
  .string({ error: 'baseURL must be a string' })
  .max(2048, 'baseURL must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'baseURL must be an absolute http or https URL');

/** Names checked on the whole map, so the message names the key (a record's key error does not). */
const namedEntries =
  (kind: 'variable' | 'secret') => (value: Record<string, unknown>, check: z.core.$RefinementCtx) => {
    const names = Object.keys(value);
    if (names.length > environmentEntriesMax)
      check.addIssue({ code: 'custom', message: `at most ${environmentEntriesMax} ${kind}s` });
    for (const name of names.filter((candidate) => !entryName.test(candidate)))
      check.addIssue({ code: 'custom', message: `${kind} name "${name}" ${entryNameRule}` });
  };

export const environmentVariables = z
  .record(
    z.string(),
    z
      .string({ error: 'a variable value must be a string' })
      .max(8192, 'a variable value must be at most 8192 characters'),
  )
  .superRefine(namedEntries('variable'));

/** Secrets to set (a value) or remove (`null`); names left out keep their value. */
export const environmentSecretChanges = z
  .record(
    z.string(),
    z
      .string({ error: 'a secret value must be a string, or null to remove it' })
      .max(65_536, 'a secret value must be at most 65536 characters')
      .nullable(),
  )
  .superRefine(namedEntries('secret'));

/** A secret as listed: its name only, never the value. */
export const environmentSecret = z.object({
  name: z.string(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});

/** Item of `GET /console/v1/projects/:projectId/environments`. */
export const environment = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  baseURL: z.string().nullable(),
  variables: z.record(z.string(), z.string()),
  secrets: z.array(environmentSecret),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type Environment = z.infer<typeof environment>;
export const environmentResponse = dataOf(environment);
export const environmentListResponse = dataOf(z.array(environment));

export const environmentCreateBody = z.object({
  name: environmentName,
  baseURL: httpUrl.nullable().optional(),
  variables: environmentVariables.optional(),
  secrets: environmentSecretChanges.optional(),
});
export type EnvironmentCreateBody = z.infer<typeof environmentCreateBody>;

/** `variables` replaces the whole map; `secrets` sets or removes the names it lists. */
export const environmentUpdateBody = z.object({
  name: environmentName.optional(),
  baseURL: httpUrl.nullable().optional(),
  variables: environmentVariables.optional(),
  secrets: environmentSecretChanges.optional(),
});
export type EnvironmentUpdateBody = z.infer<typeof environmentUpdateBody>;
