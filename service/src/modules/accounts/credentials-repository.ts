/**
 * The credential lookups of the auth plugin (plugins/auth): on every request's path, so each
 * is one query (or, on embedded SQLite, a few prepared reads remembered between writes).
 */
import { scope } from '@stepdeck/contract';
import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, sql } from 'kysely';
import type { Db, WriteCounter } from '../../adapters/db/index.ts';
import { fromFlag, readJson } from '../../adapters/db/index.ts';
import type {
  ActiveProject,
  ApiKeyLookup,
  ApiKeyPrincipal,
  UserPrincipal,
} from '../../plugins/auth/credentials.ts';
import { hashToken } from '../../plugins/auth/secrets.ts';

/** One schema object for every lookup: built once, and `readJson` remembers the texts it accepted. */
const scopeList = scope.array();

interface LookupRow {
  keyId: string;
  keyName: string;
  keyPrefix: string;
  scopes: string;
  revokedAt: string | null;
  organizationId: string;
  subscriptionActive: number | boolean;
  suspendedAt: string | null;
  projectId: string | null;
  projectName: string | null;
  defaultBranchId: string | null;
  branchId: string | null;
  branchName: string | null;
}

/**
 * The key, its organization, and (when asked) the project of that organization and its
 * branch (`branchId`, else the project's default) in ONE indexed query per request, compiled
 * once at start-up for the running dialect. Uncached: a revoke or delete applies to the very
 * next request. The caller decides the error from what came back, in the spec's order.
 */
export function apiKeyLookup(db: Db, sqlite?: SqliteDatabase.Database, writes?: WriteCounter) {
  const sentinel = {
    keyHash: '\u0000keyHash',
    projectId: '\u0000projectId',
    branchId: '\u0000branchId',
  } as const;
  // The key and its organization, as both queries select them.
  const keyColumns = [
    'apiKeys.id as keyId',
    'apiKeys.name as keyName',
    'apiKeys.prefix as keyPrefix',
    'apiKeys.scopes as scopes',
    'apiKeys.revokedAt as revokedAt',
    'apiKeys.organizationId as organizationId',
    'organizations.subscriptionActive as subscriptionActive',
    'organizations.suspendedAt as suspendedAt',
  ] as const;
  const keyOnly = db
    .selectFrom('apiKeys')
    .innerJoin('organizations', 'organizations.id', 'apiKeys.organizationId')
    .select([
      ...keyColumns,
      sql<null>`null`.as('projectId'),
      sql<null>`null`.as('projectName'),
      sql<null>`null`.as('defaultBranchId'),
      sql<null>`null`.as('branchId'),
      sql<null>`null`.as('branchName'),
    ])
    .where('apiKeys.keyHash', '=', sentinel.keyHash)
    .compile();
  const withProject = db
    .selectFrom('apiKeys')
    .innerJoin('organizations', 'organizations.id', 'apiKeys.organizationId')
    .leftJoin('projects', (join) =>
      join
        .on('projects.id', '=', sentinel.projectId)
        .onRef('projects.organizationId', '=', 'apiKeys.organizationId'),
    )
    .leftJoin('branches', (join) =>
      join
        .onRef('branches.projectId', '=', 'projects.id')
        .on(
          'branches.id',
          '=',
          sql<string>`coalesce(${sentinel.branchId}, ${sql.ref('projects.defaultBranchId')})`,
        ),
    )
    .select([
      ...keyColumns,
      'projects.id as projectId',
      'projects.name as projectName',
      'projects.defaultBranchId as defaultBranchId',
      'branches.id as branchId',
      'branches.name as branchName',
    ])
    .where('apiKeys.keyHash', '=', sentinel.keyHash)
    .compile();
  // Each compiled parameter is one of the sentinels; remember which, to bind real values.
  const slotsOf = (query: { parameters: readonly unknown[] }) =>
    query.parameters.map((parameter) => {
      const slot = (Object.keys(sentinel) as Array<keyof typeof sentinel>).find(
        (name) => sentinel[name] === parameter,
      );
      if (!slot) throw new Error('API key lookup: unexpected query parameter');
      return slot;
    });
  const queries = {
    keyOnly: { sql: keyOnly.sql, slots: slotsOf(keyOnly) },
    withProject: { sql: withProject.sql, slots: slotsOf(withProject) },
  };
  const embedded = sqlite && writes ? cachedLookup(sqlite, writes) : undefined;

  return async (
    key: string,
    options: { projectId?: string | undefined; branchId?: string | undefined } = {},
  ): Promise<ApiKeyLookup> => {
    if (embedded) {
      return embedded({ key, projectId: options.projectId ?? null, branchId: options.branchId ?? null });
    }
    const values = {
      keyHash: hashToken(key),
      projectId: options.projectId ?? null,
      branchId: options.branchId ?? null,
    };
    // Routes without a project (or without a usable project id) skip the project joins.
    const query = options.projectId ? queries.withProject : queries.keyOnly;
    const parameters = query.slots.map((slot) => values[slot]);
    const row = (await db.executeQuery<LookupRow>(CompiledQuery.raw(query.sql, parameters))).rows[0];
    return toLookup(row);
  };
}

/** The row of a key lookup as the principal, project and branch the request runs as. */
function toLookup(row: LookupRow | undefined): ApiKeyLookup {
  // A suspended organization's keys are refused like revoked ones.
  if (!row || row.revokedAt || row.suspendedAt) return { principal: undefined, project: null, branch: null };
  const principal: ApiKeyPrincipal = {
    kind: 'apiKey',
    organizationId: row.organizationId,
    apiKeyId: row.keyId,
    apiKeyName: row.keyName,
    apiKeyPrefix: row.keyPrefix,
    scopes: new Set(readJson(scopeList, row.scopes, [], `apiKeys ${row.keyId}/scopes`)),
    subscriptionActive: fromFlag(row.subscriptionActive),
  };
  const project =
    row.projectId && row.projectName && row.defaultBranchId
      ? {
          id: row.projectId,
          name: row.projectName,
          organizationId: row.organizationId,
          defaultBranchId: row.defaultBranchId,
        }
      : null;
  const branch =
    project && row.branchId && row.branchName
      ? { id: row.branchId, name: row.branchName, projectId: project.id }
      : null;
  return { principal, project, branch };
}

/**
 * Embedded SQLite only: remembers each lookup until anything is written through the query
 * builder (any write, not just to keys, so the rule stays simple and exact). A revoke, a
 * delete or a subscription change is a write, so the very next request looks the key up
 * again. Nothing is cached while a transaction is open. PostgreSQL, where other instances
 * write too, always asks the database.
 */
function cachedLookup(sqlite: SqliteDatabase.Database, writes: WriteCounter) {
  const read = sqliteLookup(sqlite);
  const cache = new Map<string, { version: number; result: ApiKeyLookup }>();
  const maxEntries = 10_000;
  return (values: { key: string; projectId: string | null; branchId: string | null }) => {
    const cacheKey = `${values.key}\n${values.projectId ?? ''}\n${values.branchId ?? ''}`;
    const hit = cache.get(cacheKey);
    if (hit && hit.version === writes.version) return hit.result;
    const version = writes.version;
    const result = toLookup(
      read({ keyHash: hashToken(values.key), projectId: values.projectId, branchId: values.branchId }),
    );
    if (!sqlite.inTransaction && version === writes.version) {
      if (cache.size >= maxEntries) cache.clear();
      cache.set(cacheKey, { version, result });
    }
    return result;
  };
}

/**
 * The same lookup on embedded SQLite: primary-key and unique-index reads on statements prepared
 * once, run synchronously without the query builder. Under HTTP load this costs a fraction of
 * one joined query through Kysely (see docs/foundation.md, benchmark). PostgreSQL keeps
 * the single joined query: there a round trip costs more than a join.
 */
function sqliteLookup(sqlite: SqliteDatabase.Database) {
  const key = sqlite.prepare<
    [string],
    Pick<LookupRow, 'scopes' | 'revokedAt' | 'organizationId'> & { id: string; name: string; prefix: string }
  >(
    'select "id", "name", "prefix", "scopes", "revokedAt", "organizationId" from "apiKeys" where "keyHash" = ?',
  );
  const organization = sqlite.prepare<[string], { subscriptionActive: number; suspendedAt: string | null }>(
    'select "subscriptionActive", "suspendedAt" from "organizations" where "id" = ?',
  );
  const project = sqlite.prepare<[string, string], { id: string; name: string; defaultBranchId: string }>(
    'select "id", "name", "defaultBranchId" from "projects" where "id" = ? and "organizationId" = ?',
  );
  const branch = sqlite.prepare<[string, string], { id: string; name: string }>(
    'select "id", "name" from "branches" where "id" = ? and "projectId" = ?',
  );
  return (values: {
    keyHash: string;
    projectId: string | null;
    branchId: string | null;
  }): LookupRow | undefined => {
    const found = key.get(values.keyHash);
    if (!found) return undefined;
    const org = organization.get(found.organizationId);
    if (!org) return undefined;
    const foundProject = values.projectId ? project.get(values.projectId, found.organizationId) : undefined;
    const foundBranch = foundProject
      ? branch.get(values.branchId ?? foundProject.defaultBranchId, foundProject.id)
      : undefined;
    return {
      keyId: found.id,
      keyName: found.name,
      keyPrefix: found.prefix,
      scopes: found.scopes,
      revokedAt: found.revokedAt,
      organizationId: found.organizationId,
      subscriptionActive: org.subscriptionActive,
      suspendedAt: org.suspendedAt,
      projectId: foundProject?.id ?? null,
      projectName: foundProject?.name ?? null,
      defaultBranchId: foundProject?.defaultBranchId ?? null,
      branchId: foundBranch?.id ?? null,
      branchName: foundBranch?.name ?? null,
    };
  };
}

export async function findSessionUser(db: Db, token: string, now: Date): Promise<UserPrincipal | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.userId')
    .innerJoin('organizations', 'organizations.id', 'users.organizationId')
    .leftJoin('installAdmins', 'installAdmins.userId', 'users.id')
    .select([
      'users.id',
      'users.email',
      'users.role',
      'users.organizationId',
      'sessions.expiresAt',
      'organizations.subscriptionActive',
      'organizations.suspendedAt',
      'installAdmins.userId as installAdminId',
    ])
    .where('sessions.tokenHash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row || row.expiresAt <= now.toISOString()) return undefined;
  // A suspended organization's people are signed out; an install admin keeps the install running.
  if (row.suspendedAt !== null && row.installAdminId === null) return undefined;
  return {
    kind: 'user',
    organizationId: row.organizationId,
    userId: row.id,
    email: row.email,
    role: row.role,
    subscriptionActive: fromFlag(row.subscriptionActive),
    installAdmin: row.installAdminId !== null,
  };
}

/** A project of the organization, as a request runs in it (the console session's path). */
export async function findActiveProject(
  db: Db,
  organizationId: string,
  projectId: string,
): Promise<ActiveProject | undefined> {
  return db
    .selectFrom('projects')
    .select(['id', 'name', 'organizationId', 'defaultBranchId'])
    .where('id', '=', projectId)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
}

/**
 * Sets the key's `lastUsedAt` to `now` unless it was set less than `resolutionMs` before: the
 * stored value itself refuses a second write within that time (other instances write too).
 */
export async function writeApiKeyLastUsed(db: Db, apiKeyId: string, now: Date, resolutionMs: number) {
  const cutoff = new Date(now.getTime() - resolutionMs).toISOString();
  await db
    .updateTable('apiKeys')
    .set({ lastUsedAt: now.toISOString() })
    .where('id', '=', apiKeyId)
    .where((eb) => eb.or([eb('lastUsedAt', 'is', null), eb('lastUsedAt', '<=', cutoff)]))
    .execute();
}
