import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { stepLimitsOf } from '../step-trees/public.ts';
import { stepsRoutes } from './routes.ts';
import { StepsService } from './service.ts';

/** Editing steps (`/v1/steps/*`): canonical and shared steps, kept in the step-tree store. */
export const stepsPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const service = new StepsService({
      db: ctx.db,
      blobs: ctx.blobs,
      clock: ctx.clock,
      reads: ctx.database.reads,
      limits: stepLimitsOf(ctx.config),
    });
    await stepsRoutes(app, ctx, service);
  },
  { name: 'steps', dependencies: ['accounts', 'tests'] },
);
