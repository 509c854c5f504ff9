import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { auditRoutes } from './routes.ts';

/** Registered before the other modules: its hooks are global and see every route's request. */
export const auditPlugin = fp<ModuleOptions>(async (app, { ctx }) => auditRoutes(app, ctx), {
  name: 'audit',
});
