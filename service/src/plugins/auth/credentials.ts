import type { Scope } from '@stepdeck/contract';

/*
 * Who a request runs as, and in which project and branch: what the auth plugin puts on the
 * request, and the lookups that produce them (`CredentialLookups`). Those read the console
 * module's tables; app.ts builds them there (`consoleCredentials`) and hands them to the
 * plugin, so the plugin imports no module and every module may use the plugin.
 */

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  organizationId: string;
  apiKeyId: string;
  apiKeyName: string;
  /** The key's visible 8-character prefix (the audit log names a key by name and prefix). */
  apiKeyPrefix: string;
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
  /** One of the people who run the install (organizations, subscriptions, limits). */
  installAdmin: boolean;
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

/** What one API-key request resolves to; project and branch are null when not asked for or not found. */
export interface ApiKeyLookup {
  principal: ApiKeyPrincipal | undefined;
  project: ActiveProject | null;
  branch: ActiveBranch | null;
}

/** The lookups authentication makes, each one query on the request's path. */
export interface CredentialLookups {
  /** The key, its organization and (when asked) a project of it and its branch (else the default). */
  apiKey(
    key: string,
    target: { projectId?: string | undefined; branchId?: string | undefined },
  ): Promise<ApiKeyLookup>;
  /** The user of a live session, by the cookie's token. */
  sessionUser(token: string, now: Date): Promise<UserPrincipal | undefined>;
  /** A project of the organization, as a request runs in it. */
  activeProject(organizationId: string, projectId: string): Promise<ActiveProject | undefined>;
  /** A branch of the project. */
  branch(branchId: string, projectId: string): Promise<ActiveBranch | undefined>;
  /** Records when each key last authenticated, off the request's path; `settled` awaits the writes. */
  keyUsage: { record(apiKeyId: string): void; settled(): Promise<void> };
}
