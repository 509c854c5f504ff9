import type { Db, Tx } from '../../adapters/db/index.ts';
import { transaction } from '../../adapters/db/locks.ts';
import { appError } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';
import {
  deleteUserAndSessions,
  findMember,
  lockOwners,
  ownerCount,
  updateRole,
} from './accounts-repository.ts';
import { activeKeyCountCreatedBy, revokeKeysCreatedBy } from './install-repository.ts';

type Role = 'owner' | 'admin' | 'member';

const rank: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** What became of the API keys a removed or demoted user created (for the audit entry). */
export interface KeysOutcome {
  revoked: number;
  kept: number;
}

/** The user's keys still in force: revoked (the default), or kept and counted. */
async function settleKeys(trx: Tx, userId: string, revoke: boolean, now: string): Promise<KeysOutcome> {
  if (revoke) return { revoked: await revokeKeysCreatedBy(trx, userId, now), kept: 0 };
  return { revoked: 0, kept: await activeKeyCountCreatedBy(trx, userId) };
}

/** The audit entry's words for what happened to the keys. */
export const keysDetail = (outcome: KeysOutcome) =>
  outcome.kept > 0
    ? `API keys kept (revokeKeys: false): ${outcome.kept}`
    : `API keys revoked: ${outcome.revoked}`;

async function targetOf(trx: Tx, organizationId: string, userId: string) {
  const user = await findMember(trx, organizationId, userId);
  if (!user) throw appError('USER_NOT_FOUND');
  return user;
}

/**
 * Roles are the owners' to change; the last owner is never demoted. A demotion revokes the
 * API keys the user created unless `revokeKeys` is false (`keys` is undefined for a promotion
 * or no change).
 */
export async function changeRole(
  db: Db,
  actor: UserPrincipal,
  userId: string,
  change: { role: Role; revokeKeys?: boolean | undefined; now: Date },
) {
  const { role } = change;
  if (actor.role !== 'owner') throw appError('OWNER_REQUIRED_TO_CHANGE_ROLES');
  return transaction(db, async (trx) => {
    await lockOwners(trx, actor.organizationId);
    const target = await targetOf(trx, actor.organizationId, userId);
    if (target.role === 'owner' && role !== 'owner' && (await ownerCount(trx, actor.organizationId)) <= 1)
      throw appError('LAST_OWNER_DEMOTION');
    await updateRole(trx, target.id, role);
    const demoted = rank[role] < rank[target.role];
    const keys = demoted
      ? await settleKeys(trx, target.id, change.revokeKeys !== false, change.now.toISOString())
      : undefined;
    return { member: { id: target.id, email: target.email, role, createdAt: target.createdAt }, keys };
  });
}

/**
 * Owners remove anyone but the last owner; admins remove admins and members. The user's
 * sessions go with them, and the API keys they created are revoked unless `revokeKeys` is false.
 */
export async function removeUser(
  db: Db,
  actor: UserPrincipal,
  userId: string,
  options: { revokeKeys: boolean; now: Date },
): Promise<KeysOutcome> {
  return transaction(db, async (trx) => {
    await lockOwners(trx, actor.organizationId);
    const target = await targetOf(trx, actor.organizationId, userId);
    if (target.role === 'owner') {
      if (actor.role !== 'owner') throw appError('OWNER_REQUIRED_TO_REMOVE_OWNER');
      if ((await ownerCount(trx, actor.organizationId)) <= 1) throw appError('LAST_OWNER_REMOVAL');
    }
    const keys = await settleKeys(trx, target.id, options.revokeKeys, options.now.toISOString());
    await deleteUserAndSessions(trx, target.id);
    return keys;
  });
}
