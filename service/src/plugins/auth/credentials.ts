import type { Scope } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import { fromFlag, fromJson } from '../../adapters/db/index.ts';
import { hashToken } from './secrets.ts';

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  organizationId: string;
  apiKeyId: string;
  apiKeyName: string;
  scopes: ReadonlySet<Scope>;
  subscriptionActive: boolean;
}

export interface UserPrincipal {
  kind: 'user';
  organizationId: string;
  userId: string;
  email: string;
  role: 'owner' | 'admin' | 'member';
  subscriptionActive: boolean;
}

export interface ActiveProject {
  id: string;
  name: string;
  organizationId: string;
  defaultBranchId: string;
}

export interface ActiveBranch {
  id: string;
  name: string;
  projectId: string;
}

/** One indexed lookup per request, uncached, so a revoke or delete applies to the very next call. */
export async function findApiKey(db: Db, key: string): Promise<ApiKeyPrincipal | undefined> {
  const row = await db
    .selectFrom('apiKeys')
    .innerJoin('organizations', 'organizations.id', 'apiKeys.organizationId')
    .select([
      'apiKeys.id',
      'apiKeys.name',
      'apiKeys.scopes',
      'apiKeys.revokedAt',
      'apiKeys.organizationId',
      'organizations.subscriptionActive',
    ])
    .where('apiKeys.keyHash', '=', hashToken(key))
    .executeTakeFirst();
  if (!row || row.revokedAt) return undefined;
  return {
    kind: 'apiKey',
    organizationId: row.organizationId,
    apiKeyId: row.id,
    apiKeyName: row.name,
    scopes: new Set(fromJson<Scope[]>(row.scopes, [])),
    subscriptionActive: fromFlag(row.subscriptionActive),
  };
}

export async function findSessionUser(db: Db, token: string, now: Date): Promise<UserPrincipal | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.userId')
    .innerJoin('organizations', 'organizations.id', 'users.organizationId')
    .select([
      'users.id',
      'users.email',
      'users.role',
      'users.organizationId',
      'sessions.expiresAt',
      'organizations.subscriptionActive',
    ])
    .where('sessions.tokenHash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row || row.expiresAt <= now.toISOString()) return undefined;
  return {
    kind: 'user',
    organizationId: row.organizationId,
    userId: row.id,
    email: row.email,
    role: row.role,
    subscriptionActive: fromFlag(row.subscriptionActive),
  };
}

export async function findProject(db: Db, organizationId: string, projectId: string) {
  return db
    .selectFrom('projects')
    .select(['id', 'name', 'organizationId', 'defaultBranchId'])
    .where('id', '=', projectId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst() satisfies Promise<ActiveProject | undefined>;
}

export async function findBranch(db: Db, projectId: string, branchId: string) {
  return db
    .selectFrom('branches')
    .select(['id', 'name', 'projectId'])
    .where('id', '=', branchId)
    .where('projectId', '=', projectId)
    .executeTakeFirst() satisfies Promise<ActiveBranch | undefined>;
}
