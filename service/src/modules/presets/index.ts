import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { presetsRoutes } from './routes.ts';

export const presetsPlugin = fp<ModuleOptions>(async (app, { ctx }) => presetsRoutes(app, ctx), {
  name: 'presets',
  dependencies: ['console'],
});
