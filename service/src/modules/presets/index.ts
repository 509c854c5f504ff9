import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { presetsRoutes } from './routes.ts';
import { PresetsService } from './service.ts';

export const presetsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const service = new PresetsService({
      db: ctx.db,
      clock: ctx.clock,
      deleteGuards: ctx.deleteGuards.presets,
    });
    await presetsRoutes(app, service);
  },
  { name: 'presets', dependencies: ['accounts', 'environments'] },
);
