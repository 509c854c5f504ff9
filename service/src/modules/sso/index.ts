import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { SignInFlow } from './flow.ts';
import { ssoRoutes } from './routes.ts';
import { SsoProviders } from './service.ts';

/**
 * Single sign-on with OpenID Connect: organizations' providers (install admins keep them), the
 * authorization code flow into a console session, and the refusal of passwords for the members
 * of an organization that requires it (a guard on the accounts module's sign-in).
 */
export const ssoPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const providers = new SsoProviders({ db: ctx.db, clock: ctx.clock, publicUrl: ctx.config.publicUrl });
    const flow = new SignInFlow({ db: ctx.db, clock: ctx.clock, providers });
    ctx.signInGuards.push(providers.passwordGuard);
    await ssoRoutes(app, ctx, { providers, flow });
  },
  { name: 'sso', dependencies: ['accounts'] },
);
