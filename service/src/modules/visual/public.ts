/**
 * What other modules may use of the visual module: nothing yet. Runs reach it through the
 * hooks it sets on `ctx.runs.visualChecks` (runs/runtime.ts); the rest is its HTTP API.
 */
export type { ImageKind } from './service.ts';
