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

type Role = 'owner' | 'admin' | 'member';

async function targetOf(trx: Tx, organizationId: string, userId: string) {
  const user = await findMember(trx, organizationId, userId);
  if (!user) throw appError('USER_NOT_FOUND');
  return user;
}

/** Roles are the owners' to change; the last owner is never demoted. */
export async function changeRole(db: Db, actor: UserPrincipal, userId: string, role: Role) {
  if (actor.role !== 'owner') throw appError('OWNER_REQUIRED_TO_CHANGE_ROLES');
  return transaction(db, async (trx) => {
    await lockOwners(trx, actor.organizationId);
    const target = await targetOf(trx, actor.organizationId, userId);
    if (target.role === 'owner' && role !== 'owner' && (await ownerCount(trx, actor.organizationId)) <= 1)
      throw appError('LAST_OWNER_DEMOTION');
    await updateRole(trx, target.id, role);
    return { id: target.id, email: target.email, role, createdAt: target.createdAt };
  });
}

/**
 * Owners remove anyone but the last owner; admins remove admins and members. The user's
 * sessions go with them.
 */
export async function removeUser(db: Db, actor: UserPrincipal, userId: string) {
  await transaction(db, async (trx) => {
    await lockOwners(trx, actor.organizationId);
    const target = await targetOf(trx, actor.organizationId, userId);
    if (target.role === 'owner') {
      if (actor.role !== 'owner') throw appError('OWNER_REQUIRED_TO_REMOVE_OWNER');
      if ((await ownerCount(trx, actor.organizationId)) <= 1) throw appError('LAST_OWNER_REMOVAL');
    }
    await deleteUserAndSessions(trx, target.id);
  });
}
