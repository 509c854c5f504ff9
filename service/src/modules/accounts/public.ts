/**
 * What other modules may use of the accounts module: the organization's projects, branches,
 * tags, API keys and settings live in its tables, and other modules read or change them only
 * through these functions (test/architecture.test.ts checks that nothing else is imported).
 */

export { insertInstall, installOrganizationId } from './accounts-repository.ts';
// The auth plugin's credential lookups and the API key's "last used" (every request's path).
export { ApiKeyUsage } from './api-key-usage.ts';
// The first start (src/bootstrap.ts): the install row, its organization, owner, project and key.
export { adminEmail, bootstrapFileName } from './bootstrap-file.ts';
export { consoleCredentials } from './credential-lookups.ts';
// The key lookup alone, uncached (bench/auth.ts measures it).
export { apiKeyLookup } from './credentials-repository.ts';
// Sign-in through an identity provider (the sso module): accounts, sessions, the password guard.
export {
  endSession,
  type MemberRole,
  memberByEmail,
  memberById,
  openSession,
  type PasswordSignInGuard,
  provisionExternalMember,
} from './external-sign-in.ts';
// The install admins (the bootstrap admin is the first) and whether an organization may fire schedules.
export { insertInstallAdmin, organizationStanding } from './install-repository.ts';
// The quotas install admins set per organization (artifacts stored, email inboxes held).
export {
  defaultInboxesPerOrganization,
  type OrganizationQuotas,
  organizationQuotasOf,
} from './quotas-repository.ts';
// Projects, branches, tags, API keys and organization settings.
export {
  branchNames,
  concurrencyCapOf,
  defaultConcurrencyCap,
  deleteApiKey,
  deleteInternalApiKeys,
  ensureTags,
  findBranch,
  findBranchByName,
  findProject,
  findTag,
  insertApiKey,
  insertOrganization,
  insertProject,
  insertUser,
  lockOrganization,
  tagIdsInOrganization,
  tagNames,
} from './repository.ts';
export type { BranchCopier } from './service.ts';
