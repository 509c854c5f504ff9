import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { installSettingsRoutes } from './routes.ts';
import { InstallSettingsService } from './service.ts';

/** The install's settings (`/console/v1/install/settings`), edited by install admins only. */
export const installSettingsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    await installSettingsRoutes(
      app,
      new InstallSettingsService({ db: ctx.db, clock: ctx.clock, config: ctx.config }),
    );
  },
  { name: 'install-settings' },
);
