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

/**
 * One provider as openid-client sees it, discovered from its issuer at each sign-in (no cache:
 * a changed provider or rotated keys apply at once, for one request more per sign-in).
 */
export class OidcProvider {
  private readonly config: client.Configuration;
  readonly issuerUrl: string;

  private constructor(config: client.Configuration, issuerUrl: string) {
    this.config = config;
    this.issuerUrl = issuerUrl;
  }

  static async discover(issuerUrl: string, clientId: string, clientSecret: string): Promise<OidcProvider> {
    const insecure = new URL(issuerUrl).protocol === 'http:';
    try {
      const config = await client.discovery(
        new URL(issuerUrl),
        clientId,
        undefined,
        // client_secret_basic: the method every provider supports when none was registered.
        client.ClientSecretBasic(clientSecret),
        { timeout: 10, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
      );
      return new OidcProvider(config, issuerUrl);
    } catch (error) {
      throw appError('SSO_PROVIDER_UNAVAILABLE', issuerUrl, detailOf(error));
    }
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
  ): Promise<VerifiedClaims> {
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
    if (!claims) throw appError('SSO_ANSWER_INVALID', 'no ID token');
    let userinfo: Record<string, unknown> = {};
    if (this.config.serverMetadata().userinfo_endpoint) {
      try {
        userinfo = await client.fetchUserInfo(this.config, tokens.access_token, claims.sub);
      } catch (error) {
        throw this.refusal(error);
      }
    }
    return { ...claims, ...userinfo, sub: claims.sub };
  }

  /** Where the browser goes to end the provider's session too (undefined when it has no such endpoint). */
  endSessionUrl(clientId: string, postLogoutRedirectUri: string): string | undefined {
    if (!this.config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(this.config, {
      client_id: clientId,
      post_logout_redirect_uri: postLogoutRedirectUri,
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
