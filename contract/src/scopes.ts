import { z } from 'zod';

/** Every scope an API key can hold, from the spec's "Scopes" table. */
export const allScopes = [
  'emailInbox:read',
  'emailInbox:delete',
  'tests:read',
  'tests:create',
  'tests:update',
  'tests:delete',
  'tests:run',
  'tests:cancel',
  'testRuns:read',
  'schedules:read',
  'schedules:run',
  'schedules:pause',
  'schedules:resume',
] as const;

export const scope = z.enum(allScopes, { error: `must be one of ${allScopes.join(', ')}` });
export type Scope = z.infer<typeof scope>;

/**
 * What the GitHub Action and the CLI call, hence the scopes of a CI key: list a tag's or a
 * directory's tests (`tests:read`, which every `/v1/tests` route needs too), start runs
 * (`tests:run`), read their status, report and artifacts (`testRuns:read`) and cancel them
 * when the job is cancelled or its deadline passes (`tests:cancel`). Nothing that writes tests.
 */
export const ciScopes = [
  'tests:read',
  'tests:run',
  'testRuns:read',
  'tests:cancel',
] as const satisfies readonly Scope[];
