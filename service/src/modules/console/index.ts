import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { artifactProxyRoutes } from './artifact-proxy.ts';
import { consoleRoutes } from './routes.ts';

/**
 * The console's API and its same-origin artifact route. The console's static files (and the
 * `/console/*` fallback to index.html) are served by plugins/console-static.ts; the router
 * prefers this route to that wildcard whatever the order of registration.
 */
export const consolePlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    await consoleRoutes(app, ctx);
    await artifactProxyRoutes(app, ctx);
  },
  { name: 'console' },
);
