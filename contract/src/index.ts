/**
 * The wire contract of the Stepdeck API: zod schemas used by the service's routes and by
 * the action's client, so both sides agree on every field by construction.
 */

export * from './admin.ts';
export * from './authoring.ts';
export * from './browser-environment.ts';
export * from './common.ts';
export * from './console.ts';
export * from './data-set.ts';
export * from './environments.ts';
export * from './healing.ts';
export * from './history.ts';
export * from './install.ts';
export * from './install-settings.ts';
export * from './live-sessions.ts';
export * from './recording.ts';
export * from './resources.ts';
export * from './run-config.ts';
export * from './runs.ts';
export * from './scopes.ts';
export * from './sso.ts';
export * from './step-actions.ts';
export * from './tests.ts';
export * from './visual.ts';
export * from './vitals.ts';
