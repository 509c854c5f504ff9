import { z } from 'zod';
import { dataOf, isoTimestamp } from './common.ts';

/**
 * Single sign-on with OpenID Connect: an organization's provider, set by install admins under
 * `/console/v1/install/organizations/:id/sso` (the organization's admins read it at
 * `/console/v1/sso/provider`). The client secret is write-only: no response carries it.
 */

/** The roles a group may map to. */
export const ssoRole = z.enum(['owner', 'admin', 'member'], { error: 'role must be owner, admin or member' });
/** What a sign-in gets when none of its groups is mapped: a role, or `none` (refused). */
export const ssoDefaultRole = z.enum(['owner', 'admin', 'member', 'none'], {
  error: 'defaultRole must be owner, admin, member or none',
});

const emailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    'must be a domain such as example.com',
  );

export const ssoRoleMapping = z.object({
  group: z.string().trim().min(1, 'group must not be empty').max(256, 'group must be at most 256 characters'),
  role: ssoRole,
});

export const ssoProviderBody = z.object({
  /** The issuer; its `/.well-known/openid-configuration` is read at each sign-in. */
  issuerUrl: z
    .url({ error: 'issuerUrl must be a URL' })
    .max(2048, 'issuerUrl must be at most 2048 characters'),
  clientId: z
    .string()
    .trim()
    .min(1, 'clientId must not be empty')
    .max(512, 'clientId must be at most 512 characters'),
  /** Required when the provider is first set; omitted, the stored secret stays. */
  clientSecret: z.string().min(1, 'clientSecret must not be empty').max(4096).optional(),
  /** What people type on the sign-in page (besides their email's domain). */
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'slug must be 1 to 63 lowercase letters, digits or hyphens'),
  emailDomains: z.array(emailDomain).max(20, 'emailDomains: at most 20').default([]),
  groupsClaim: z.string().trim().min(1).max(256).default('groups'),
  roleMappings: z.array(ssoRoleMapping).max(100, 'roleMappings: at most 100').default([]),
  defaultRole: ssoDefaultRole.default('none'),
  ssoRequired: z.boolean().default(false),
  /** The owner who may still use a password while `ssoRequired` (required then). */
  breakGlassEmail: z.email({ error: 'breakGlassEmail must be an email address' }).nullable().default(null),
});
export type SsoProviderBody = z.input<typeof ssoProviderBody>;

export const ssoProvider = z.object({
  organizationId: z.string(),
  issuerUrl: z.string(),
  clientId: z.string(),
  /** Always true once set: the secret itself is never returned. */
  clientSecretSet: z.boolean(),
  slug: z.string(),
  emailDomains: z.array(z.string()),
  groupsClaim: z.string(),
  roleMappings: z.array(ssoRoleMapping),
  defaultRole: ssoDefaultRole,
  ssoRequired: z.boolean(),
  breakGlassEmail: z.string().nullable(),
  /** The redirect URI to register at the provider (the same for every organization). */
  redirectUri: z.string(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});
export type SsoProvider = z.infer<typeof ssoProvider>;
/** `data: null` when the organization has no provider. */
export const ssoProviderResponse = dataOf(ssoProvider.nullable());

/** `POST /console/v1/sso/sign-out`: where the browser goes next to end the provider's session too. */
export const ssoSignOutResponse = dataOf(z.object({ endSessionUrl: z.string().nullable() }));
