import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { consoleRoutes } from './routes.ts';

export const consolePlugin = fp<ModuleOptions>(async (app, { ctx }) => consoleRoutes(app, ctx), {
  name: 'console',
});
