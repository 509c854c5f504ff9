import * as client from 'openid-client';
import { AppError, appError } from '../../errors.ts';

/** Plain http is accepted for a provider on this machine only (tests, a local Keycloak). */
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);
export const issuerAllowed = (issuerUrl: string) => {
  const url = new URL(issuerUrl);
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHosts.has(url.hostname));
};

const detailOf = (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${message}${cause}`.slice(0, 300);
};

/** What a verified sign-in carries: the ID token's claims merged with the userinfo answer. */
export type VerifiedClaims = Record<string, unknown> & { sub: string };

/** How long a saved provider's discovery has to answer: the admin waits on it. */
const saveCheckTimeoutSeconds = 5;

/** One provider as openid-client sees it, from its issuer's discovery document. */
export class OidcProvider {
  private readonly config: client.Configuration;
  readonly issuerUrl: string;

  private constructor(config: client.Configuration, issuerUrl: string) {
    this.config = config;
    this.issuerUrl = issuerUrl;
  }

  static async discover(issuerUrl: string, clientId: string, clientSecret: string): Promise<OidcProvider> {
    try {
      return await OidcProvider.fetch(issuerUrl, clientId, clientSecret, 10);
    } catch (error) {
      throw appError('SSO_PROVIDER_UNAVAILABLE', issuerUrl, detailOf(error));
    }
  }

  /**
   * A provider being saved: its issuer must answer discovery, quickly, with a document naming
   * itself as that issuer; 400 naming the problem otherwise.
   */
  static async check(issuerUrl: string, clientId: string, clientSecret: string): Promise<void> {
    try {
      await OidcProvider.fetch(issuerUrl, clientId, clientSecret, saveCheckTimeoutSeconds);
    } catch (error) {
      const { code, cause } = error as {
        code?: string;
        cause?: { attribute?: string; body?: { issuer?: unknown } };
      };
      if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' && cause?.attribute === 'issuer')
        throw appError('SSO_ISSUER_MISMATCH', String(cause.body?.issuer).slice(0, 300), issuerUrl);
      throw appError('SSO_ISSUER_DISCOVERY_FAILED', issuerUrl, detailOf(error));
    }
  }

  private static async fetch(issuerUrl: string, clientId: string, clientSecret: string, timeout: number) {
    const insecure = new URL(issuerUrl).protocol === 'http:';
    const config = await client.discovery(
      new URL(issuerUrl),
      clientId,
      undefined,
      // client_secret_basic: the method every provider supports when none was registered.
      client.ClientSecretBasic(clientSecret),
      { timeout, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
    );
    return new OidcProvider(config, issuerUrl);
  }

  /** The provider's login page for a new attempt, with its PKCE verifier, state and nonce. */
  async authorizationUrl(redirectUri: string, groupsClaim: string) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const supported = this.config.serverMetadata().scopes_supported ?? [];
    // A provider that offers the groups claim as a scope of its own (oidc-provider, some
    // Keycloak setups) is asked for it; others send it with the default scopes or not at all.
    const scopes = ['openid', 'email', 'profile', ...(supported.includes(groupsClaim) ? [groupsClaim] : [])];
    const url = client.buildAuthorizationUrl(this.config, {
      redirect_uri: redirectUri,
      scope: scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, verifier, state, nonce };
  }

  /**
   * Exchanges the code (checking PKCE, state, nonce, the ID token's signature, issuer,
   * audience and expiry) and reads the userinfo endpoint when there is one.
   */
  async verify(
    callbackUrl: URL,
    checks: { verifier: string; state: string; nonce: string },
  ): Promise<{ claims: VerifiedClaims; idToken: string }> {
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(this.config, callbackUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw this.refusal(error);
    }
    const claims = tokens.claims();
    if (!claims || !tokens.id_token) throw appError('SSO_ANSWER_INVALID', 'no ID token');
    let userinfo: Record<string, unknown> = {};
    if (this.config.serverMetadata().userinfo_endpoint) {
      try {
        userinfo = await client.fetchUserInfo(this.config, tokens.access_token, claims.sub);
      } catch (error) {
        throw this.refusal(error);
      }
    }
    return { claims: { ...claims, ...userinfo, sub: claims.sub }, idToken: tokens.id_token };
  }

  /**
   * Where the browser goes to end the provider's session too (undefined when it has no such
   * endpoint). With the session's ID token as `id_token_hint` the provider knows whose session
   * it is and, as most do, ends it without asking.
   */
  endSessionUrl(
    clientId: string,
    postLogoutRedirectUri: string,
    idToken: string | undefined,
  ): string | undefined {
    if (!this.config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(this.config, {
      client_id: clientId,
      post_logout_redirect_uri: postLogoutRedirectUri,
      ...(idToken ? { id_token_hint: idToken } : {}),
    }).href;
  }

  /** The provider answered but its answer does not hold (an error, a bad token): 400; unreachable: 502. */
  private refusal(error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (error instanceof client.AuthorizationResponseError)
      return appError(
        'SSO_PROVIDER_REFUSED',
        `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`,
      );
    if (error instanceof client.ResponseBodyError)
      return appError(
        'SSO_PROVIDER_REFUSED',
        `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`,
      );
    const network = (value: unknown) =>
      value instanceof TypeError || (value instanceof Error && value.name === 'TimeoutError');
    if (network(error) || (error instanceof Error && network(error.cause)))
      return appError('SSO_PROVIDER_UNAVAILABLE', this.issuerUrl, detailOf(error));
    return appError('SSO_ANSWER_INVALID', detailOf(error));
  }
}

/** How long a discovery is reused: keys and endpoints a provider changes apply within it. */
const discoveryLifetimeMs = 60 * 60_000;

/**
 * Discovered providers by organization, so a sign-in does not fetch the issuer's document each
 * time. An entry lasts an hour, and only for the provider as saved (its `version`: a save on
 * any instance changes it); a failed discovery is not kept. openid-client refetches the
 * provider's signing keys itself when a token names one it has not seen.
 */
export class DiscoveryCache {
  private readonly entries = new Map<
    string,
    { version: string; at: number; provider: Promise<OidcProvider> }
  >();

  get(organizationId: string, version: string, discover: () => Promise<OidcProvider>): Promise<OidcProvider> {
    const entry = this.entries.get(organizationId);
    if (entry && entry.version === version && Date.now() - entry.at < discoveryLifetimeMs)
      return entry.provider;
    const provider = discover();
    const fresh = { version, at: Date.now(), provider };
    this.entries.set(organizationId, fresh);
    provider.catch(() => {
      if (this.entries.get(organizationId) === fresh) this.entries.delete(organizationId);
    });
    return provider;
  }

  forget(organizationId: string): void {
    this.entries.delete(organizationId);
  }
}
