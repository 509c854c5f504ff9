import { type Permission, usePermissions, whoMay } from '../../lib/permissions.ts';

/**
 * Says, where a page's changing controls would be, that the signed-in role may not use them
 * (e.g. "Only owners and admins can manage API keys."); nothing for a role that may.
 */
export function RoleNote({ permission, what }: { permission: Permission; what: string }) {
  const { can } = usePermissions();
  if (can(permission)) return null;
  return (
    <p className="notice" role="note">
      {whoMay(permission)} can {what}.
    </p>
  );
}
