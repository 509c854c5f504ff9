/**
 * The live-sessions module's surface for other modules: none needs more than its types (sessions
 * end at sign-out through the module's own hook on the sign-out route).
 */
export type { LiveSession, LiveSessionOwner } from './service.ts';
