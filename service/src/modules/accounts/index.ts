import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { consoleRoutes } from './routes.ts';
import { ConsoleService } from './service.ts';
import { SignInThrottle } from './sign-in-throttle.ts';

/**
 * The console's API. The console's static files (and the `/console/*` fallback to index.html)
 * are served by plugins/console-static.ts; the router prefers API routes to that wildcard
 * whatever the order of registration.
 */
export const accountsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const service = new ConsoleService({ db: ctx.db, clock: ctx.clock });
    const throttle = new SignInThrottle({ clock: ctx.clock });
    await consoleRoutes(app, ctx, { service, throttle });
  },
  { name: 'accounts' },
);
