import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { environmentsRoutes } from './routes.ts';
import { EnvironmentsService } from './service.ts';

/** Environments: per project, named base URL, variables and secrets a run can pick. */
export const environmentsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    await environmentsRoutes(app, new EnvironmentsService({ db: ctx.db, clock: ctx.clock }));
  },
  { name: 'environments', dependencies: ['accounts'] },
);
