import type { Scope } from '@stepdeck/contract';

/**
 * Who may call a route, declared in the route's own options (`config: { access }`). Every
 * route under `/v1` and `/console/v1` must declare one: the auth plugin refuses to register a
 * route without it, so a forgotten rule can never mean an open route.
 */
export type AccessRule =
  | {
      kind: 'apiKey';
      /** All scopes required (the spec's chain rules are spelled out on each route). */
      scopes: Scope[];
      /** Needs `x-project-id` (tests, steps and test-runs routes). */
      project?: boolean;
      /** A changing request that needs an active subscription. */
      license?: boolean;
      /**
       * Whether the console's session cookie may call this route instead of a key, and the
       * least role it needs (owner and admin pass `admin`; everyone passes `member`).
       * Absent: API keys only. The project comes from `x-project-id` as for keys.
       */
      session?: SessionRole;
    }
  /**
   * Console routes: a session cookie; `change` needs an admin or owner, `owner` an owner,
   * `installAdmin` an install administrator (whatever their role in their organization).
   */
  | { kind: 'session'; access: SessionAccess }
  /** Reachable without credentials (login, health, signed blob URLs). */
  | { kind: 'public' };

export type ApiKeyRule = Extract<AccessRule, { kind: 'apiKey' }>;

/** The least console role a session needs on a `/v1` route. */
export type SessionRole = 'member' | 'admin';

/**
 * `read`: any role; `change`: admin or owner; `owner`: owner; `installAdmin`: one of the people
 * who run the install (organizations, their subscription and limits, the install's audit log).
 */
export type SessionAccess = 'read' | 'change' | 'owner' | 'installAdmin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; required on every `/v1` and `/console/v1` route. */
    access?: AccessRule;
  }
}

/** Project reads: any signed-in member may make them too. */
export const projectRead = (...scopes: Scope[]): AccessRule => ({
  kind: 'apiKey',
  scopes,
  project: true,
  session: 'member',
});

/** Project changes: they need the subscription, and a session needs an admin or owner. */
export const projectChange = (...scopes: Scope[]): AccessRule => ({
  kind: 'apiKey',
  scopes,
  project: true,
  license: true,
  session: 'admin',
});

/** Triggering and cancelling runs: members may, as the console's everyday actions. */
export const runControl = (...scopes: Scope[]): AccessRule => ({
  kind: 'apiKey',
  scopes,
  project: true,
  license: true,
  session: 'member',
});

/** Organization-wide API-key routes (no `x-project-id`); the console has its own routes for these. */
export const apiKeyOnly = (scopes: Scope[], options: { license?: boolean } = {}): AccessRule => ({
  kind: 'apiKey',
  scopes,
  ...(options.license ? { license: true } : {}),
});

/** A `/console/v1` route: a session cookie with at least this access. */
export const session = (access: SessionAccess): AccessRule => ({ kind: 'session', access });

/** Reachable without credentials. */
export const publicAccess: AccessRule = { kind: 'public' };

/** Routes outside these prefixes (health, docs, signed blobs) need no rule. */
export const guardedPrefixes = ['/v1/', '/console/v1/'];

export const accessKey = (method: string, url: string) => `${method} ${url}`;
