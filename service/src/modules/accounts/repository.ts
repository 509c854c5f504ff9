import { randomUUID } from 'node:crypto';
import { type Scope, scope } from '@stepdeck/contract';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk, readJson, toJson } from '../../adapters/db/index.ts';
import { apiKeyPrefix, hashPassword, hashToken, newApiKey } from '../../plugins/auth/secrets.ts';

type Executor = Db | Tx;

/** `concurrencyCap` null: the install's default applies (`defaultConcurrencyCap`). */
export async function insertOrganization(
  db: Executor,
  name: string,
  now: string,
  concurrencyCap: number | null = null,
) {
  const id = randomUUID();
  await db
    .insertInto('organizations')
    .values({ id, name, subscriptionActive: 1, concurrencyCap, createdAt: now })
    .execute();
  return id;
}

export async function insertUser(
  db: Executor,
  user: { organizationId: string; email: string; password: string; role: 'owner' | 'admin' | 'member' },
  now: string,
) {
  const id = randomUUID();
  await db
    .insertInto('users')
    .values({
      id,
      organizationId: user.organizationId,
      email: user.email.toLowerCase(),
      passwordHash: await hashPassword(user.password),
      role: user.role,
      createdAt: now,
    })
    .execute();
  return id;
}

/** A project always has its default branch `main`; both rows are written together. */
export async function insertProject(db: Executor, organizationId: string, name: string, now: string) {
  const projectId = randomUUID();
  const branchId = randomUUID();
  await db
    .insertInto('projects')
    .values({ id: projectId, organizationId, name, defaultBranchId: branchId, createdAt: now })
    .execute();
  await db
    .insertInto('branches')
    .values({ id: branchId, projectId, name: 'main', sourceBranchId: null, createdAt: now })
    .execute();
  return { projectId, branchId };
}

/** A project of the organization (the accounts module owns projects; others ask here). */
export async function findProject(db: Executor, organizationId: string, projectId: string) {
  return db
    .selectFrom('projects')
    .select(['id', 'name', 'defaultBranchId'])
    .where('id', '=', projectId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

export async function insertApiKey(
  db: Executor,
  key: {
    organizationId: string;
    name: string;
    scopes: readonly Scope[];
    createdByUserId: string | null;
    createdByEmail?: string | null;
  },
  now: string,
) {
  const id = randomUUID();
  const value = newApiKey();
  const prefix = apiKeyPrefix(value);
  await db
    .insertInto('apiKeys')
    .values({
      id,
      organizationId: key.organizationId,
      name: key.name,
      prefix,
      keyHash: hashToken(value),
      scopes: toJson(key.scopes),
      createdByUserId: key.createdByUserId,
      createdByEmail: key.createdByEmail ?? null,
      revokedAt: null,
      lastUsedAt: null,
      createdAt: now,
    })
    .execute();
  return { id, name: key.name, prefix, scopes: [...key.scopes], key: value };
}

export async function listApiKeys(db: Db, organizationId: string) {
  const rows = await db
    .selectFrom('apiKeys')
    .select([
      'id',
      'name',
      'prefix',
      'scopes',
      'revokedAt',
      'createdAt',
      'lastUsedAt',
      'createdByUserId',
      'createdByEmail',
    ])
    .where('organizationId', '=', organizationId)
    .orderBy('createdAt', 'asc')
    .execute();
  return rows.map((row) => ({
    ...row,
    scopes: readJson(scope.array(), row.scopes, [], `apiKeys ${row.id}/scopes`),
  }));
}

/** Default parallels per organization when the console has not set one (2-core machine). */
export const defaultConcurrencyCap = 2;

export async function concurrencyCapOf(db: Executor, organizationId: string): Promise<number> {
  const org = await db
    .selectFrom('organizations')
    .select(['concurrencyCap'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return org?.concurrencyCap ?? defaultConcurrencyCap;
}

/**
 * Takes the organization row's lock (PostgreSQL `FOR UPDATE`) for the rest of the transaction:
 * a per-organization count and the insert it guards then cannot interleave with another's.
 */
export async function lockOrganization(trx: Tx, organizationId: string): Promise<void> {
  await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forUpdate().execute();
}

/** A branch, of the project when one is given. */
export async function findBranch(db: Executor, branchId: string, projectId?: string) {
  let query = db.selectFrom('branches').select(['id', 'name', 'projectId']).where('id', '=', branchId);
  if (projectId !== undefined) query = query.where('projectId', '=', projectId);
  return query.executeTakeFirst();
}

/** A branch of the project by its name. */
export async function findBranchByName(db: Executor, projectId: string, name: string) {
  return db
    .selectFrom('branches')
    .select(['id', 'name', 'projectId'])
    .where('projectId', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Names of these branches, by id (ids that name no branch are left out). */
export async function branchNames(db: Executor, branchIds: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(branchIds)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('branches').select(['id', 'name']).where('id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** A tag of the organization. */
export async function findTag(db: Executor, organizationId: string, tagId: string) {
  return db
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('id', '=', tagId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

/** Which of these ids are tags of the organization. */
export async function tagIdsInOrganization(
  db: Executor,
  organizationId: string,
  tagIds: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunk([...new Set(tagIds)], 500)) {
    const rows = await db
      .selectFrom('tags')
      .select('id')
      .where('organizationId', '=', organizationId)
      .where('id', 'in', part)
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/** Names of these tags, by id, in the database's order of names (SQL `order by name`). */
export async function tagNames(db: Executor, tagIds: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const part of chunk([...new Set(tagIds)], 500)) {
    const rows = await db
      .selectFrom('tags')
      .select(['id', 'name'])
      .where('id', 'in', part)
      .orderBy('name')
      .execute();
    for (const row of rows) names.set(row.id, row.name);
  }
  return names;
}

/**
 * The organization's tags with these names, created when missing (an import names tags by
 * name). Returns every name's id and how many tags were created.
 */
export async function ensureTags(
  trx: Executor,
  organizationId: string,
  names: readonly string[],
  now: string,
): Promise<{ ids: Map<string, string>; created: number }> {
  const ids = new Map<string, string>();
  let created = 0;
  if (names.length === 0) return { ids, created };
  const existing = await trx
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('organizationId', '=', organizationId)
    .execute();
  for (const tag of existing) ids.set(tag.name, tag.id);
  for (const name of names) {
    if (ids.has(name)) continue;
    const id = randomUUID();
    await trx.insertInto('tags').values({ id, organizationId, name, createdAt: now }).execute();
    ids.set(name, id);
    created += 1;
  }
  return { ids, created };
}

export async function deleteApiKey(db: Executor, apiKeyId: string): Promise<void> {
  await db.deleteFrom('apiKeys').where('id', '=', apiKeyId).execute();
}

/** Deletes the internal keys (no creating user) named with this prefix and created before `beforeIso`. */
export async function deleteInternalApiKeys(
  db: Executor,
  namePrefix: string,
  beforeIso: string,
): Promise<number> {
  const result = await db
    .deleteFrom('apiKeys')
    .where('name', 'like', `${namePrefix}%`)
    .where('createdByUserId', 'is', null)
    .where('createdAt', '<', beforeIso)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
