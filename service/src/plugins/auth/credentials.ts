import type { Scope } from '@stepdeck/contract';

/*
 * Who a request runs as, and in which project and branch: what the auth plugin puts on the
 * request. The lookups that produce them are the console module's (its tables): see
 * modules/console/credentials-repository.ts, used through modules/console/public.ts.
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
