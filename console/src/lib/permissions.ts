import type { ConsoleRole } from '@stepdeck/contract';
import { useQuery } from '@tanstack/react-query';
import { api, sessionKey } from '../api/endpoints.ts';

/**
 * Who may change what, the console's one copy of the service's rules, so a page shows a role
 * only the controls the service would let it use. The service decides (and answers 403): these
 * mirror the routes' access rules (service/src/plugins/auth/access.ts; `'change'` = an admin or owner,
 * `'owner'` = an owner, `'read'` = any member; on `/v1`, `session: 'admin'` or `'member'`) and
 * the role checks inside the handlers (service/src/modules/console/members.ts, service.ts).
 */
const leastRole = {
  /** POST /console/v1/api-keys, …/revoke, DELETE …: change. */
  apiKeys: 'admin',
  /** POST, PUT, enable, disable, rotate-secret, DELETE /console/v1/webhooks…, deliveries' retry: change. */
  webhooks: 'admin',
  /** POST, PUT, DELETE /console/v1/schedules…: change. */
  schedules: 'admin',
  /** POST, PUT, DELETE /console/v1/projects/:projectId/alert-channels…, and /test: change. */
  alerts: 'admin',
  /** POST /console/v1/schedules/:id/trigger: read (members start runs). */
  triggerSchedules: 'member',
  /** POST, PUT, DELETE /console/v1/projects/:projectId/presets…: change. */
  presets: 'admin',
  /** POST, PUT, DELETE /console/v1/projects/:projectId/environments…: change. */
  environments: 'admin',
  /** POST, DELETE /console/v1/users…: change (only an owner adds or removes an owner: service.ts, members.ts). */
  users: 'admin',
  /** PUT /console/v1/users/:id: change, and members.ts's changeRole: owners only. */
  roles: 'owner',
  /** POST, DELETE /console/v1/projects/:projectId/secrets…: change. */
  secrets: 'admin',
  /** POST, DELETE /console/v1/tags…: change. */
  tags: 'admin',
  /** POST, DELETE /console/v1/email-inboxes… and their messages: change. */
  inboxes: 'admin',
  /** POST /console/v1/projects and …/branches: change. */
  projects: 'admin',
  /** PUT, DELETE /v1/tests/:testId/quarantine: change (`session: 'admin'`). */
  quarantine: 'admin',
  /** POST, DELETE /console/v1/projects/:projectId/live-sessions… and the stream: change. */
  liveBrowser: 'admin',
  /** GET /console/v1/audit-log and its exports: admin (members may not read it). */
  auditLog: 'admin',
  /** PUT /console/v1/subscription and /organization/limits: owner. */
  billing: 'owner',
} as const satisfies Record<string, ConsoleRole>;

export type Permission = keyof typeof leastRole;

const rank: Record<ConsoleRole, number> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` may do what `permission` names. */
export const allows = (role: ConsoleRole, permission: Permission): boolean =>
  rank[role] >= rank[leastRole[permission]];

/** Whether `role` may add or remove a user who holds `target` (owners only for owners). */
export const mayManageUser = (role: ConsoleRole, target: ConsoleRole): boolean =>
  allows(role, 'users') && (target !== 'owner' || role === 'owner');

/** The roles `role` may give a new user (an owner only by an owner). */
export const assignableRoles = (role: ConsoleRole): ConsoleRole[] =>
  (['owner', 'admin', 'member'] as const).filter((item) => item !== 'owner' || role === 'owner');

/** Who may, in words, for the note a page shows a role that may not. */
export const whoMay = (permission: Permission): string =>
  leastRole[permission] === 'owner' ? 'Only owners' : 'Only owners and admins';

/**
 * The signed-in user's role and what it allows. The session is loaded before any page under a
 * project renders (RequireSession), so the role is known; until then nothing is allowed.
 */
export function usePermissions() {
  const session = useQuery({ queryKey: sessionKey, queryFn: api.session, staleTime: 60_000 });
  const role = session.data?.data.role;
  return {
    role,
    can: (permission: Permission) => (role ? allows(role, permission) : false),
  };
}
