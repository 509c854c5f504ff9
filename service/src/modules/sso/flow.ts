import type { Db } from '../../adapters/db/index.ts';
import type { Clock } from '../../clock.ts';
import { appError } from '../../errors.ts';
import { hashToken } from '../../plugins/auth/secrets.ts';
import { SecretBox } from '../../secret-box.ts';
import { openSession, provisionExternalMember } from '../accounts/public.ts';
import { keepIdToken, takeIdToken } from './repository.ts';
import { groupsOf, roleFromGroups, type SsoProviders } from './service.ts';

/** How long a person has at the provider's login page before the attempt expires. */
export const flowLifetimeMs = 10 * 60_000;

/** What the browser carries between start and callback, sealed (it cannot read or change it). */
interface PendingFlow {
  purpose: 'sso-flow';
  organizationId: string;
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  expiresAt: number;
}

/** Who an attempt is about, as far as it got: the audit entry names them. */
export interface Attempt {
  organizationId?: string;
  email?: string;
  userId?: string;
}

/**
 * Only paths inside the console, as the console's own `next` handling: anything else (another
 * host, `//host`, a backslash the browser reads as `/`) goes to the console's home.
 */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/sign-in')) return '/';
  if (next.includes('\\') || [...next].some((c) => c.charCodeAt(0) < 0x20)) return '/';
  return next;
}

/** The authorization code flow with PKCE, state and nonce, from the sign-in page to a session. */
export class SignInFlow {
  private readonly options: { db: Db; clock: Clock; providers: SsoProviders };

  constructor(options: { db: Db; clock: Clock; providers: SsoProviders }) {
    this.options = options;
  }

  /** The provider's login URL and the sealed cookie that will let the callback finish. */
  async start(typed: string, next: string | undefined, attempt: Attempt) {
    const { providers, db, clock } = this.options;
    const row = await providers.find(typed);
    attempt.organizationId = row.organizationId;
    const oidc = await providers.oidcOf(row);
    const login = await oidc.authorizationUrl(providers.redirectUri, row.groupsClaim);
    const pending: PendingFlow = {
      purpose: 'sso-flow',
      organizationId: row.organizationId,
      state: login.state,
      nonce: login.nonce,
      verifier: login.verifier,
      next: safeNext(next),
      expiresAt: clock.now().getTime() + flowLifetimeMs,
    };
    const cookie = (await SecretBox.open(db)).seal(JSON.stringify(pending));
    return { location: login.url, cookie };
  }

  private async pending(cookie: string | undefined): Promise<PendingFlow> {
    if (!cookie) throw appError('SSO_SIGN_IN_EXPIRED');
    let flow: PendingFlow;
    try {
      flow = JSON.parse((await SecretBox.open(this.options.db)).open(cookie)) as PendingFlow;
    } catch {
      throw appError('SSO_SIGN_IN_EXPIRED');
    }
    if (flow.purpose !== 'sso-flow' || flow.expiresAt < this.options.clock.now().getTime())
      throw appError('SSO_SIGN_IN_EXPIRED');
    return flow;
  }

  /**
   * Verifies the provider's answer against this browser's attempt, then creates the account or
   * sets its role from the groups, and opens a session.
   */
  async finish(
    query: { state?: string | undefined; error?: string | undefined; error_description?: string | undefined },
    rawQuery: string,
    cookie: string | undefined,
    attempt: Attempt,
  ) {
    const { providers, db, clock } = this.options;
    const flow = await this.pending(cookie);
    attempt.organizationId = flow.organizationId;
    if (query.error)
      throw appError(
        'SSO_PROVIDER_REFUSED',
        `${query.error}${query.error_description ? `: ${query.error_description}` : ''}`.slice(0, 300),
      );
    if (!query.state || query.state !== flow.state) throw appError('SSO_STATE_MISMATCH');
    const row = await providers.providerOf(flow.organizationId);
    if (!row) throw appError('SSO_PROVIDER_NOT_FOUND');
    const oidc = await providers.oidcOf(row);
    const { claims, idToken } = await oidc.verify(new URL(`${providers.redirectUri}?${rawQuery}`), flow);
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (!email.includes('@') || claims.email_verified === false) throw appError('SSO_EMAIL_MISSING');
    attempt.email = email;
    const groups = groupsOf(claims, row.groupsClaim);
    const role = roleFromGroups(row, groups);
    if (!role) throw appError('SSO_NO_MAPPED_GROUP', row.groupsClaim);
    const member = await provisionExternalMember(db, {
      organizationId: row.organizationId,
      email,
      role,
      now: clock.now(),
    });
    attempt.userId = member.userId;
    const session = await openSession(db, member.userId, clock.now());
    await keepIdToken(
      db,
      {
        sessionTokenHash: hashToken(session.token),
        organizationId: row.organizationId,
        idTokenSealed: (await SecretBox.open(db)).seal(idToken),
        expiresAt: new Date(clock.now().getTime() + session.maxAgeSeconds * 1000).toISOString(),
      },
      clock.now().toISOString(),
    );
    return { ...session, member, groups, next: flow.next };
  }

  /**
   * Where sign-out sends the browser to end the provider's session too, when it can say: with
   * the session's ID token (kept sealed on the server since sign-in) as the hint.
   */
  async endSessionUrl(organizationId: string, sessionToken: string | undefined): Promise<string | null> {
    const { providers, db } = this.options;
    const sealed = sessionToken ? await takeIdToken(db, hashToken(sessionToken)) : undefined;
    const row = await providers.providerOf(organizationId);
    if (!row) return null;
    try {
      const idToken = sealed ? (await SecretBox.open(db)).open(sealed) : undefined;
      const oidc = await providers.oidcOf(row);
      return oidc.endSessionUrl(row.clientId, `${providers.publicUrl}/console/sign-in`, idToken) ?? null;
    } catch {
      // The provider is down: the Stepdeck session still ends.
      return null;
    }
  }
}
