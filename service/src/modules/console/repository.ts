import { randomUUID } from 'node:crypto';
import { type Scope, scope } from '@stepdeck/contract';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { readJson, toJson } from '../../adapters/db/index.ts';
import { apiKeyPrefix, hashPassword, hashToken, newApiKey } from '../../plugins/auth/secrets.ts';

type Executor = Db | Tx;

export async function insertOrganization(db: Executor, name: string, now: string) {
  const id = randomUUID();
  await db
    .insertInto('organizations')
    .values({ id, name, subscriptionActive: 1, concurrencyCap: null, createdAt: now })
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

/** A project of the organization (the console module owns projects; others ask here). */
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
  key: { organizationId: string; name: string; scopes: readonly Scope[]; createdByUserId: string | null },
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
    .select(['id', 'name', 'prefix', 'scopes', 'revokedAt', 'createdAt'])
    .where('organizationId', '=', organizationId)
    .orderBy('createdAt', 'asc')
    .execute();
  return rows.map((row) => ({
    ...row,
    scopes: readJson(scope.array(), row.scopes, [], `apiKeys ${row.id}/scopes`),
  }));
}
