import type { Scope } from '@stepdeck/contract';

/**
 * Who may call what: the one table of route → authentication rules. Every route under
 * `/v1` and `/console/v1` must have an entry; registering a route without one fails at
 * start-up, so a forgotten rule can never mean an open route.
 */
export type RouteRule =
  | {
      kind: 'apiKey';
      /** All scopes required (the spec's chain rules are spelled out here). */
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
  /** Console routes: a session cookie; `change` needs an admin or owner, `owner` an owner (billing). */
  | { kind: 'session'; access: 'read' | 'change' | 'owner' | 'installOwner' }
  /** Reachable without credentials (login, health, signed blob URLs). */
  | { kind: 'public' };

/** The least console role a session needs on a `/v1` route. */
export type SessionRole = 'member' | 'admin';

/** Project reads: any signed-in member may make them too. */
const read = (...scopes: Scope[]): RouteRule => ({
  kind: 'apiKey',
  scopes,
  project: true,
  session: 'member',
});
/** Project changes: a session needs an admin or owner. */
const change = (...scopes: Scope[]): RouteRule => ({
  kind: 'apiKey',
  scopes,
  project: true,
  license: true,
  session: 'admin',
});
/** Triggering and cancelling runs: members may, as the console's everyday actions. */
const runControl = (...scopes: Scope[]): RouteRule => ({
  kind: 'apiKey',
  scopes,
  project: true,
  license: true,
  session: 'member',
});

export const routeRules: Record<string, RouteRule> = {
  // Tests: every route also needs tests:read.
  'GET /v1/tests': read('tests:read'),
  'GET /v1/tests/:testId': read('tests:read'),
  'GET /v1/tests/:testId/steps': read('tests:read'),
  'GET /v1/tests/:testId/steps/:stepId': read('tests:read'),
  'GET /v1/tests/:testId/files': read('tests:read'),
  'GET /v1/tests/:testId/revisions': read('tests:read'),
  'GET /v1/tests/:testId/revisions/:revisionId': read('tests:read'),
  'POST /v1/tests': change('tests:read', 'tests:create'),
  'POST /v1/tests/:testId/duplicate': change('tests:read', 'tests:create'),
  'PUT /v1/tests/:testId': change('tests:read', 'tests:update'),
  'POST /v1/tests/:testId/revisions': change('tests:read', 'tests:update'),
  'POST /v1/tests/bulk-update-status': change('tests:read', 'tests:update'),
  'POST /v1/tests/bulk-update-tags': change('tests:read', 'tests:update'),
  'DELETE /v1/tests/:testId': change('tests:read', 'tests:delete'),
  'POST /v1/tests/bulk-delete': change('tests:read', 'tests:delete'),
  'POST /v1/tests/:testId/remote-run': runControl('tests:read', 'tests:run'),
  'POST /v1/tests/remote-run': runControl('tests:read', 'tests:run'),
  // Export reads only, so it needs no subscription.
  'POST /v1/tests/export': read('tests:read'),
  'POST /v1/tests/import': change('tests:read', 'tests:create'),

  // Steps: reads need tests:read, writes tests:update (and tests:read by the chain rule).
  'GET /v1/steps/shared': read('tests:read'),
  'GET /v1/steps/:stepId': read('tests:read'),
  'GET /v1/steps/:stepId/children': read('tests:read'),
  'GET /v1/steps/:stepId/usage': read('tests:read'),
  'PUT /v1/steps/:stepId/update': change('tests:read', 'tests:update'),
  'PUT /v1/steps/:stepId/children': change('tests:read', 'tests:update'),
  'DELETE /v1/steps/:stepId': change('tests:read', 'tests:update'),

  // Test runs: every route needs testRuns:read.
  'GET /v1/test-runs': read('testRuns:read'),
  'GET /v1/test-runs/latest': read('testRuns:read'),
  'GET /v1/test-runs/stats': read('testRuns:read'),
  'GET /v1/test-runs/:runId': read('testRuns:read'),
  'GET /v1/test-runs/:runId/tests': read('testRuns:read'),
  'GET /v1/test-runs/:runId/artifacts': read('testRuns:read'),
  'GET /v1/test-runs/:runId/report': read('testRuns:read'),
  'POST /v1/test-runs/:runId/cancel': runControl('testRuns:read', 'tests:cancel'),

  // Email inboxes, schedules and the sample payload take no session (their handlers serve API
  // keys only); the console uses the /console/v1 routes for those.
  // Email inboxes are organization-scoped: no x-project-id.
  'GET /v1/email-inboxes': { kind: 'apiKey', scopes: ['emailInbox:read'] },
  'GET /v1/email-inboxes/limits': { kind: 'apiKey', scopes: ['emailInbox:read'] },
  'GET /v1/email-inboxes/:inboxId/messages': { kind: 'apiKey', scopes: ['emailInbox:read'] },
  'GET /v1/email-inboxes/:inboxId/messages/:messageId': { kind: 'apiKey', scopes: ['emailInbox:read'] },
  'DELETE /v1/email-inboxes/:inboxId': { kind: 'apiKey', scopes: ['emailInbox:delete'], license: true },
  // Creating inboxes is console-only; the route exists to say so to API-key callers.
  'POST /v1/email-inboxes': { kind: 'apiKey', scopes: [] },

  // Schedules: every route needs schedules:read; changing calls need the subscription.
  'GET /v1/schedules': { kind: 'apiKey', scopes: ['schedules:read'] },
  'GET /v1/schedules/:scheduleId': { kind: 'apiKey', scopes: ['schedules:read'] },
  'POST /v1/schedules/:scheduleId/trigger': {
    kind: 'apiKey',
    scopes: ['schedules:read', 'schedules:run'],
    license: true,
  },
  'POST /v1/schedules/:scheduleId/disable': {
    kind: 'apiKey',
    scopes: ['schedules:read', 'schedules:pause'],
    license: true,
  },
  'POST /v1/schedules/:scheduleId/enable': {
    kind: 'apiKey',
    scopes: ['schedules:read', 'schedules:resume'],
    license: true,
  },

  // The spec leaves this scope open: any valid key may read an example payload.
  'GET /v1/webhooks/sample-payload': { kind: 'apiKey', scopes: [] },

  // Console session.
  'POST /console/v1/session': { kind: 'public' },
  'DELETE /console/v1/session': { kind: 'session', access: 'read' },
  'GET /console/v1/session': { kind: 'session', access: 'read' },
  // Every role changes its own password (the current one is asked again).
  'PUT /console/v1/session/password': { kind: 'session', access: 'read' },
  'POST /console/v1/organizations': { kind: 'session', access: 'installOwner' },
  'GET /console/v1/organization': { kind: 'session', access: 'read' },
  // Billing (subscription and limits): owners only; admins read them.
  'PUT /console/v1/organization/limits': { kind: 'session', access: 'owner' },
  'PUT /console/v1/subscription': { kind: 'session', access: 'owner' },
  'POST /console/v1/users': { kind: 'session', access: 'change' },
  'GET /console/v1/users': { kind: 'session', access: 'read' },
  'POST /console/v1/api-keys': { kind: 'session', access: 'change' },
  'GET /console/v1/api-keys': { kind: 'session', access: 'read' },
  'POST /console/v1/api-keys/:id/revoke': { kind: 'session', access: 'change' },
  'DELETE /console/v1/api-keys/:id': { kind: 'session', access: 'change' },
  'POST /console/v1/projects': { kind: 'session', access: 'change' },
  'GET /console/v1/projects': { kind: 'session', access: 'read' },
  'POST /console/v1/projects/:projectId/branches': { kind: 'session', access: 'change' },
  'GET /console/v1/projects/:projectId/branches': { kind: 'session', access: 'read' },
  'POST /console/v1/projects/:projectId/secrets': { kind: 'session', access: 'change' },
  'GET /console/v1/projects/:projectId/secrets': { kind: 'session', access: 'read' },
  'DELETE /console/v1/projects/:projectId/secrets/:name': { kind: 'session', access: 'change' },
  'POST /console/v1/tags': { kind: 'session', access: 'change' },
  'GET /console/v1/tags': { kind: 'session', access: 'read' },
  'DELETE /console/v1/tags/:id': { kind: 'session', access: 'change' },
  'POST /console/v1/email-inboxes': { kind: 'session', access: 'change' },
  'GET /console/v1/email-inboxes': { kind: 'session', access: 'read' },
  'POST /console/v1/schedules': { kind: 'session', access: 'change' },
  'GET /console/v1/schedules': { kind: 'session', access: 'read' },
  'PUT /console/v1/schedules/:id': { kind: 'session', access: 'change' },
  'DELETE /console/v1/schedules/:id': { kind: 'session', access: 'change' },
  'POST /console/v1/webhooks': { kind: 'session', access: 'change' },
  'GET /console/v1/webhooks': { kind: 'session', access: 'read' },
  'GET /console/v1/webhooks/:id': { kind: 'session', access: 'read' },
  'PUT /console/v1/webhooks/:id': { kind: 'session', access: 'change' },
  'POST /console/v1/webhooks/:id/enable': { kind: 'session', access: 'change' },
  'POST /console/v1/webhooks/:id/disable': { kind: 'session', access: 'change' },
  'POST /console/v1/webhooks/:id/rotate-secret': { kind: 'session', access: 'change' },
  'DELETE /console/v1/webhooks/:id': { kind: 'session', access: 'change' },
  'GET /console/v1/webhooks/:id/deliveries': { kind: 'session', access: 'read' },
  // Same-origin artifact download for the run page and Playwright's trace viewer.
  'GET /console/v1/test-runs/:runId/artifact': { kind: 'session', access: 'read' },
  'POST /console/v1/webhooks/:id/deliveries/:deliveryId/retry': { kind: 'session', access: 'change' },
  // Administration (console part 3): presets, users and roles, the audit log.
  'GET /console/v1/projects/:projectId/presets': { kind: 'session', access: 'read' },
  'POST /console/v1/projects/:projectId/presets': { kind: 'session', access: 'change' },
  'PUT /console/v1/projects/:projectId/presets/:presetId': { kind: 'session', access: 'change' },
  'DELETE /console/v1/projects/:projectId/presets/:presetId': { kind: 'session', access: 'change' },
  'PUT /console/v1/users/:id': { kind: 'session', access: 'change' },
  'DELETE /console/v1/users/:id': { kind: 'session', access: 'change' },
  // Reads, but for admins and owners only: `change` is the rule's admin-or-owner level.
  'GET /console/v1/audit-log': { kind: 'session', access: 'change' },
  'GET /console/v1/audit-log/export': { kind: 'session', access: 'change' },
  'GET /console/v1/schedules/preview': { kind: 'session', access: 'read' },
  // Administration, second pass: the inbox message viewer, webhook samples, schedule trigger.
  'GET /console/v1/email-inboxes/limits': { kind: 'session', access: 'read' },
  'GET /console/v1/email-inboxes/:inboxId/messages': { kind: 'session', access: 'read' },
  'GET /console/v1/email-inboxes/:inboxId/messages/:messageId': { kind: 'session', access: 'read' },
  'GET /console/v1/email-inboxes/:inboxId/messages/:messageId/html': { kind: 'session', access: 'read' },
  'DELETE /console/v1/email-inboxes/:inboxId/messages/:messageId': { kind: 'session', access: 'change' },
  'DELETE /console/v1/email-inboxes/:inboxId': { kind: 'session', access: 'change' },
  'GET /console/v1/webhooks/sample-payload': { kind: 'session', access: 'read' },
  // Members start runs from the console (as on /v1): triggering a schedule is one of those.
  'POST /console/v1/schedules/:id/trigger': { kind: 'session', access: 'read' },
};

export const ruleKey = (method: string, url: string) => `${method} ${url}`;

/** Routes outside these prefixes (health, docs, signed blobs) need no rule. */
export const guardedPrefixes = ['/v1/', '/console/v1/'];
