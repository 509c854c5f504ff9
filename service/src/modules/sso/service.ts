import type { SsoProvider, SsoProviderBody, ssoProviderBody } from '@stepdeck/contract';
import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { SecretBox } from '../../secret-box.ts';
import {
  endSession,
  memberByEmail,
  memberById,
  organizationStanding,
  type PasswordSignInGuard,
} from '../accounts/public.ts';
import { DiscoveryCache, issuerAllowed, OidcProvider } from './oidc.ts';
import {
  deleteProvider,
  findProvider,
  findProviderBySlug,
  listProviders,
  type ProviderRow,
  upsertProvider,
} from './repository.ts';

type ProviderInput = ReturnType<typeof ssoProviderBody.parse>;

export type { SsoProviderBody };

/** The one callback every provider redirects to (the flow's cookie says which organization). */
export const callbackPath = '/console/v1/sso/callback';

/**
 * Organizations' OpenID Connect providers: kept by install admins, found from what a person
 * types on the sign-in page, and the password sign-in's guard when an organization requires
 * single sign-on. The client secret is sealed on the way in and opened only for the provider.
 */
export class SsoProviders {
  private readonly db: Db;
  private readonly clock: Clock;
  readonly redirectUri: string;
  readonly publicUrl: string;
  private readonly discoveries = new DiscoveryCache();

  constructor(options: { db: Db; clock: Clock; publicUrl: string }) {
    this.db = options.db;
    this.clock = options.clock;
    this.publicUrl = options.publicUrl;
    this.redirectUri = `${options.publicUrl}${callbackPath}`;
  }

  /** The provider as the console sees it: never the secret. */
  private async present(row: ProviderRow): Promise<SsoProvider> {
    const breakGlass = row.breakGlassUserId
      ? await memberById(this.db, row.organizationId, row.breakGlassUserId)
      : undefined;
    return {
      organizationId: row.organizationId,
      issuerUrl: row.issuerUrl,
      clientId: row.clientId,
      clientSecretSet: row.clientSecretSealed.length > 0,
      slug: row.slug,
      emailDomains: row.emailDomains,
      groupsClaim: row.groupsClaim,
      roleMappings: row.roleMappings,
      defaultRole: row.defaultRole,
      ssoRequired: row.ssoRequired,
      breakGlassEmail: breakGlass?.email ?? null,
      redirectUri: this.redirectUri,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  private async requireOrganization(organizationId: string) {
    if (!(await organizationStanding(this.db, organizationId))) throw appError('ORGANIZATION_NOT_FOUND');
  }

  async read(organizationId: string): Promise<SsoProvider | null> {
    await this.requireOrganization(organizationId);
    const row = await findProvider(this.db, organizationId);
    return row ? this.present(row) : null;
  }

  async save(organizationId: string, input: ProviderInput): Promise<SsoProvider> {
    await this.requireOrganization(organizationId);
    if (!issuerAllowed(input.issuerUrl)) throw appError('SSO_ISSUER_INSECURE');
    const existing = await findProvider(this.db, organizationId);
    if (!existing && input.clientSecret === undefined) throw appError('SSO_CLIENT_SECRET_REQUIRED');
    const others = (await listProviders(this.db)).filter((row) => row.organizationId !== organizationId);
    const slugOwner = others.find((row) => row.slug === input.slug);
    if (slugOwner) throw appError('SSO_SLUG_TAKEN', input.slug);
    const domains = [...new Set(input.emailDomains)];
    for (const domain of domains)
      if (others.some((row) => row.emailDomains.includes(domain))) throw appError('SSO_DOMAIN_TAKEN', domain);
    let breakGlassUserId: string | null = null;
    if (input.breakGlassEmail !== null) {
      const member = await memberByEmail(this.db, organizationId, input.breakGlassEmail);
      if (member?.role !== 'owner') throw appError('SSO_BREAK_GLASS_NOT_OWNER', input.breakGlassEmail);
      breakGlassUserId = member.id;
    } else if (input.ssoRequired) throw appError('SSO_BREAK_GLASS_REQUIRED');
    const now = this.clock.now().toISOString();
    const box = await SecretBox.open(this.db);
    const issuerUrl = input.issuerUrl.replace(/\/+$/, '');
    const clientSecret =
      input.clientSecret ?? (existing?.clientSecretSealed ? box.open(existing.clientSecretSealed) : '');
    await OidcProvider.check(issuerUrl, input.clientId, clientSecret);
    const row: ProviderRow = {
      organizationId,
      slug: input.slug,
      emailDomains: domains,
      issuerUrl,
      clientId: input.clientId,
      clientSecretSealed:
        input.clientSecret !== undefined
          ? box.seal(input.clientSecret)
          : (existing?.clientSecretSealed ?? ''),
      groupsClaim: input.groupsClaim,
      roleMappings: input.roleMappings,
      defaultRole: input.defaultRole,
      ssoRequired: input.ssoRequired,
      breakGlassUserId,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    try {
      await upsertProvider(this.db, row);
    } catch (error) {
      // Two saves raced for one slug: the unique index decides.
      if (/unique|duplicate key/i.test(String((error as Error).message)))
        throw appError('SSO_SLUG_TAKEN', input.slug);
      throw error;
    } finally {
      this.discoveries.forget(organizationId);
    }
    return this.present(row);
  }

  async remove(organizationId: string): Promise<void> {
    await this.requireOrganization(organizationId);
    this.discoveries.forget(organizationId);
    if (!(await deleteProvider(this.db, organizationId))) throw appError('SSO_PROVIDER_NOT_FOUND');
  }

  /** The provider as discovered from its issuer: fetched once, then reused until it is saved again. */
  async oidcOf(row: ProviderRow): Promise<OidcProvider> {
    const version = `${row.issuerUrl} ${row.clientId} ${row.updatedAt}`;
    return this.discoveries.get(row.organizationId, version, async () =>
      OidcProvider.discover(row.issuerUrl, row.clientId, await this.clientSecretOf(row)),
    );
  }

  /**
   * The provider behind what a person typed: an email (its domain), a bare domain, or the
   * organization's sign-on name.
   */
  async find(typed: string): Promise<ProviderRow> {
    const text = typed.trim().toLowerCase();
    const domain = text.includes('@') ? text.slice(text.lastIndexOf('@') + 1) : text;
    const bySlug = text.includes('@') ? undefined : await findProviderBySlug(this.db, text);
    const found = bySlug ?? (await listProviders(this.db)).find((row) => row.emailDomains.includes(domain));
    if (!found) throw appError('SSO_ORGANIZATION_UNKNOWN', typed.trim().slice(0, 200));
    return found;
  }

  async providerOf(organizationId: string): Promise<ProviderRow | undefined> {
    return findProvider(this.db, organizationId);
  }

  async clientSecretOf(row: ProviderRow): Promise<string> {
    return (await SecretBox.open(this.db)).open(row.clientSecretSealed);
  }

  /** The password sign-in's guard: members of an organization that requires SSO are refused. */
  readonly passwordGuard: PasswordSignInGuard = async (user) => {
    const row = await findProvider(this.db, user.organizationId);
    if (row?.ssoRequired && row.breakGlassUserId !== user.userId) throw appError('SSO_REQUIRED');
  };

  async endSession(token: string): Promise<void> {
    await endSession(this.db, token);
  }
}

/**
 * The role a sign-in's groups give: the highest role any of its groups maps to, else the
 * default (`undefined`: no access).
 */
export function roleFromGroups(
  provider: Pick<ProviderRow, 'roleMappings' | 'defaultRole'>,
  groups: readonly string[],
): 'owner' | 'admin' | 'member' | undefined {
  const rank = { member: 0, admin: 1, owner: 2 } as const;
  const matched = provider.roleMappings
    .filter((mapping) => groups.includes(mapping.group))
    .map((m) => m.role);
  if (matched.length === 0) return provider.defaultRole === 'none' ? undefined : provider.defaultRole;
  return matched.reduce((best, role) => (rank[role] > rank[best] ? role : best));
}

/** A groups claim as providers send it: an array of names, or one name, or a space-separated list. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}
