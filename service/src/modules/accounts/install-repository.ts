/**
 * The install administration's queries: install admins, every organization of the install
 * with its subscription, limits, suspension and scheduled deletion.
 */
import type { Db, Tx } from '../../adapters/db/index.ts';

type Executor = Db | Tx;

export async function isInstallAdmin(db: Executor, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('installAdmins')
    .select('userId')
    .where('userId', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertInstallAdmin(
  db: Executor,
  admin: { userId: string; grantedByUserId: string | null; createdAt: string },
) {
  await db
    .insertInto('installAdmins')
    .values(admin)
    .onConflict((conflict) => conflict.column('userId').doNothing())
    .execute();
}

export async function deleteInstallAdmin(db: Executor, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('installAdmins').where('userId', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function installAdminCount(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('installAdmins')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listInstallAdmins(db: Executor) {
  return db
    .selectFrom('installAdmins')
    .innerJoin('users', 'users.id', 'installAdmins.userId')
    .innerJoin('organizations', 'organizations.id', 'users.organizationId')
    .leftJoin('users as granter', 'granter.id', 'installAdmins.grantedByUserId')
    .select([
      'installAdmins.userId',
      'users.email',
      'users.organizationId',
      'organizations.name as organizationName',
      'granter.email as grantedBy',
      'installAdmins.createdAt',
    ])
    .orderBy('installAdmins.createdAt', 'asc')
    .execute();
}

export async function findUserByEmail(db: Executor, email: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'organizationId'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

const organizationColumns = [
  'organizations.id',
  'organizations.name',
  'organizations.subscriptionActive',
  'organizations.concurrencyCap',
  'organizations.suspendedAt',
  'organizations.deleteAfter',
  'organizations.createdAt',
  'organizations.artifactQuotaBytes',
  'organizations.inboxLimit',
] as const;

export async function listOrganizations(db: Executor) {
  return db
    .selectFrom('organizations')
    .select([
      ...organizationColumns,
      (eb) =>
        eb
          .selectFrom('users')
          .select((inner) => inner.fn.countAll<number>().as('count'))
          .whereRef('users.organizationId', '=', 'organizations.id')
          .as('userCount'),
    ])
    .orderBy('organizations.createdAt', 'asc')
    .orderBy('organizations.id', 'asc')
    .execute();
}

export async function findOrganization(db: Executor, organizationId: string) {
  return db
    .selectFrom('organizations')
    .select([
      ...organizationColumns,
      (eb) =>
        eb
          .selectFrom('users')
          .select((inner) => inner.fn.countAll<number>().as('count'))
          .whereRef('users.organizationId', '=', 'organizations.id')
          .as('userCount'),
    ])
    .where('organizations.id', '=', organizationId)
    .executeTakeFirst();
}

export type OrganizationRow = NonNullable<Awaited<ReturnType<typeof findOrganization>>>;

export async function updateOrganizationState(
  db: Executor,
  organizationId: string,
  changes: { suspendedAt?: string | null; deleteAfter?: string | null },
) {
  await db.updateTable('organizations').set(changes).where('id', '=', organizationId).execute();
}

/** Whether the organization's schedules may fire and its people use it: subscribed and not suspended. */
export async function organizationStanding(
  db: Executor,
  organizationId: string,
): Promise<{ subscriptionActive: boolean; suspended: boolean } | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select(['subscriptionActive', 'suspendedAt'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { subscriptionActive: Boolean(row.subscriptionActive), suspended: row.suspendedAt !== null };
}

/** Organizations whose deletion's grace period has passed. */
export async function organizationsDueForPurge(db: Executor, nowIso: string) {
  return db
    .selectFrom('organizations')
    .select('id')
    .where('deleteAfter', 'is not', null)
    .where('deleteAfter', '<=', nowIso)
    .execute();
}

/**
 * Removes the organization with its people, sessions, keys, projects (and branches) and tags;
 * the other modules' rows of it are no longer reachable by anyone (no key, no session).
 */
export async function purgeOrganization(trx: Tx, organizationId: string) {
  const users = trx.selectFrom('users').select('id').where('organizationId', '=', organizationId);
  await trx.deleteFrom('sessions').where('userId', 'in', users).execute();
  await trx.deleteFrom('installAdmins').where('userId', 'in', users).execute();
  await trx.deleteFrom('users').where('organizationId', '=', organizationId).execute();
  await trx.deleteFrom('apiKeys').where('organizationId', '=', organizationId).execute();
  const projects = trx.selectFrom('projects').select('id').where('organizationId', '=', organizationId);
  await trx.deleteFrom('branches').where('projectId', 'in', projects).execute();
  await trx.deleteFrom('projects').where('organizationId', '=', organizationId).execute();
  await trx.deleteFrom('tags').where('organizationId', '=', organizationId).execute();
  await trx.deleteFrom('organizations').where('id', '=', organizationId).execute();
}

/** The user's keys still in force, revoked at `now`; returns how many. */
export async function revokeKeysCreatedBy(db: Executor, userId: string, now: string): Promise<number> {
  const result = await db
    .updateTable('apiKeys')
    .set({ revokedAt: now })
    .where('createdByUserId', '=', userId)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function activeKeyCountCreatedBy(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('apiKeys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('createdByUserId', '=', userId)
    .where('revokedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
