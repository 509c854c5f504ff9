import type SqliteDatabase from 'better-sqlite3';
import type { Db, WriteCounter } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import type { CredentialLookups } from '../../plugins/auth/credentials.ts';
import { ApiKeyUsage } from './api-key-usage.ts';
import { apiKeyLookup, findActiveProject, findSessionUser } from './credentials-repository.ts';
import { findBranch } from './repository.ts';

/**
 * The auth plugin's lookups over this module's users, sessions, keys, projects and branches,
 * built once by app.ts. `sqlite` and `writes` (embedded SQLite) let the key lookup remember
 * its prepared reads between writes; `logError` hears a failed "last used" write.
 */
export function consoleCredentials(options: {
  db: Db;
  clock: Clock;
  sqlite?: SqliteDatabase.Database | undefined;
  writes?: WriteCounter | undefined;
  logError: (error: unknown, apiKeyId: string) => void;
}): CredentialLookups {
  const { db, clock } = options;
  return {
    apiKey: apiKeyLookup(db, options.sqlite, options.writes),
    sessionUser: (token, now) => findSessionUser(db, token, now),
    activeProject: (organizationId, projectId) => findActiveProject(db, organizationId, projectId),
    branch: (branchId, projectId) => findBranch(db, branchId, projectId),
    keyUsage: new ApiKeyUsage({ db, clock, logError: options.logError }),
  };
}
