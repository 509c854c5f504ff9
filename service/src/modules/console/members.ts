import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { onPostgres, transaction } from '../../adapters/db/locks.ts';
import { conflict, forbidden, notFound } from '../../errors.ts';
import type { UserPrincipal } from '../../plugins/auth/credentials.ts';

type Role = 'owner' | 'admin' | 'member';

/**
 * One organization's owners change one at a time (PostgreSQL), so two owners demoting each
 * other at once can never leave it with none. SQLite runs transactions one after another.
 */
async function lockOwners(trx: Tx, organizationId: string) {
  if (onPostgres(trx))
    await sql`select pg_advisory_xact_lock(hashtextextended(${`owners:${organizationId}`}, 0))`.execute(trx);
}

async function targetOf(trx: Tx, organizationId: string, userId: string) {
  const user = await trx
    .selectFrom('users')
    .select(['id', 'email', 'role', 'createdAt'])
    .where('id', '=', userId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  if (!user) throw notFound('User not found');
  return user;
}

async function ownerCount(trx: Tx, organizationId: string) {
  const row = await trx
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organizationId', '=', organizationId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Roles are the owners' to change; the last owner is never demoted. */
export async function changeRole(db: Db, actor: UserPrincipal, userId: string, role: Role) {
  if (actor.role !== 'owner') throw forbidden('Only an owner can change roles');
  return transaction(db, async (trx) => {
    await lockOwners(trx, actor.organizationId);
    const target = await targetOf(trx, actor.organizationId, userId);
    if (target.role === 'owner' && role !== 'owner' && (await ownerCount(trx, actor.organizationId)) <= 1)
      throw conflict('The last owner cannot be demoted: make another user an owner first');
    await trx.updateTable('users').set({ role }).where('id', '=', target.id).execute();
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
      if (actor.role !== 'owner') throw forbidden('Only an owner can remove an owner');
      if ((await ownerCount(trx, actor.organizationId)) <= 1)
        throw conflict('The last owner cannot be removed: make another user an owner first');
    }
    await trx.deleteFrom('sessions').where('userId', '=', target.id).execute();
    await trx.deleteFrom('users').where('id', '=', target.id).execute();
  });
}
