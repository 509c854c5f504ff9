/**
 * The console service's own queries: sign-in and sessions, key revocation, the organization's
 * projects, branches, tags and users, and the members' role changes. Shared lookups that other
 * modules use through public.ts stay in repository.ts.
 */
import { sql } from 'kysely';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { toFlag } from '../../adapters/db/index.ts';
import { onPostgres } from '../../adapters/db/locks.ts';

type Executor = Db | Tx;
type Role = 'owner' | 'admin' | 'member';

export async function findUserForSignIn(db: Executor, email: string) {
  return db
    .selectFrom('users')
    .innerJoin('organizations', 'organizations.id', 'users.organizationId')
    .leftJoin('installAdmins', 'installAdmins.userId', 'users.id')
    .select([
      'users.id',
      'users.passwordHash',
      'users.organizationId',
      'users.role',
      'users.email',
      'organizations.suspendedAt',
      'installAdmins.userId as installAdminId',
    ])
    .where('users.email', '=', email)
    .executeTakeFirst();
}

export async function findPasswordHash(db: Executor, userId: string) {
  return db.selectFrom('users').select(['passwordHash']).where('id', '=', userId).executeTakeFirst();
}

/** The user's new password, and every session of theirs but `keepTokenHash` ended, at once. */
export async function replacePassword(db: Db, userId: string, passwordHash: string, keepTokenHash: string) {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ passwordHash }).where('id', '=', userId).execute();
    await trx
      .deleteFrom('sessions')
      .where('userId', '=', userId)
      .where('tokenHash', '!=', keepTokenHash)
      .execute();
  });
}

export async function insertSession(
  db: Executor,
  session: { tokenHash: string; userId: string; createdAt: string; expiresAt: string },
) {
  await db.insertInto('sessions').values(session).execute();
}

export async function deleteSession(db: Executor, tokenHash: string) {
  await db.deleteFrom('sessions').where('tokenHash', '=', tokenHash).execute();
}

/** Marks the organization's key revoked; false when it has no such key. */
export async function revokeApiKeyOf(db: Executor, organizationId: string, id: string, now: string) {
  const result = await db
    .updateTable('apiKeys')
    .set({ revokedAt: now })
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the organization's key; false when it has no such key. */
export async function deleteApiKeyOf(db: Executor, organizationId: string, id: string) {
  const result = await db
    .deleteFrom('apiKeys')
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function listProjectsOf(db: Executor, organizationId: string) {
  return db
    .selectFrom('projects')
    .select(['id', 'name', 'defaultBranchId', 'createdAt'])
    .where('organizationId', '=', organizationId)
    .orderBy('createdAt', 'asc')
    .execute();
}

export async function listBranchesOf(db: Executor, projectId: string) {
  return db
    .selectFrom('branches')
    .select(['id', 'name', 'sourceBranchId', 'createdAt'])
    .where('projectId', '=', projectId)
    .orderBy('createdAt', 'asc')
    .execute();
}

export async function branchExistsInProject(db: Executor, projectId: string, branchId: string) {
  const row = await db
    .selectFrom('branches')
    .select('id')
    .where('id', '=', branchId)
    .where('projectId', '=', projectId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertBranch(
  db: Executor,
  branch: { id: string; projectId: string; name: string; sourceBranchId: string; createdAt: string },
) {
  await db.insertInto('branches').values(branch).execute();
}

export async function insertTag(
  db: Executor,
  tag: { id: string; organizationId: string; name: string; createdAt: string },
) {
  await db.insertInto('tags').values(tag).execute();
}

export async function listTagsOf(db: Executor, organizationId: string) {
  return db
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('organizationId', '=', organizationId)
    .orderBy('name', 'asc')
    .execute();
}

/** Deletes the organization's tag; false when it has no such tag. */
export async function deleteTagOf(db: Executor, organizationId: string, id: string) {
  const result = await db
    .deleteFrom('tags')
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function updateSubscription(db: Executor, organizationId: string, active: boolean) {
  await db
    .updateTable('organizations')
    .set({ subscriptionActive: toFlag(active) })
    .where('id', '=', organizationId)
    .execute();
}

export async function getOrganization(db: Executor, organizationId: string) {
  return db
    .selectFrom('organizations')
    .select(['id', 'name', 'subscriptionActive', 'concurrencyCap', 'createdAt'])
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
}

export async function updateConcurrencyCap(db: Executor, organizationId: string, concurrencyCap: number) {
  await db.updateTable('organizations').set({ concurrencyCap }).where('id', '=', organizationId).execute();
}

export async function listUsersOf(db: Executor, organizationId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'createdAt'])
    .where('organizationId', '=', organizationId)
    .orderBy('createdAt', 'asc')
    .execute();
}

/** Marks the install as set up (first start), with its first organization: row 1, so once only. */
export async function insertInstall(db: Executor, organizationId: string, now: string) {
  await db.insertInto('install').values({ id: 1, organizationId, createdAt: now }).execute();
}

/** The organization this install was set up with (the one whose owners create others). */
export async function installOrganizationId(db: Executor): Promise<string | undefined> {
  return (await db.selectFrom('install').select('organizationId').executeTakeFirst())?.organizationId;
}

/**
 * One organization's owners change one at a time (PostgreSQL), so two owners demoting each
 * other at once can never leave it with none. SQLite runs transactions one after another.
 */
export async function lockOwners(trx: Tx, organizationId: string) {
  if (onPostgres(trx))
    await sql`select pg_advisory_xact_lock(hashtextextended(${`owners:${organizationId}`}, 0))`.execute(trx);
}

export async function findMember(db: Executor, organizationId: string, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'createdAt'])
    .where('id', '=', userId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

export async function ownerCount(db: Executor, organizationId: string) {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organizationId', '=', organizationId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateRole(db: Executor, userId: string, role: Role) {
  await db.updateTable('users').set({ role }).where('id', '=', userId).execute();
}

/** Deletes the user and their sessions (call inside a transaction). */
export async function deleteUserAndSessions(trx: Tx, userId: string) {
  await trx.deleteFrom('sessions').where('userId', '=', userId).execute();
  await trx.deleteFrom('users').where('id', '=', userId).execute();
}
