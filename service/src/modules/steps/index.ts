import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { stepsRoutes } from './routes.ts';

export const stepsPlugin = fp<ModuleOptions>(async (app, { ctx }) => stepsRoutes(app, ctx), {
  name: 'steps',
  dependencies: ['console'],
});
