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
