import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { visualRoutes } from './routes.ts';
import { VisualService } from './service.ts';

/**
 * Visual checks: baselines per branch and the review of the screenshots runs find. It hands
 * the runs module its baselines and records what runs found through `ctx.runs.visualChecks`,
 * so runs never import it.
 */
export const visualPlugin = fp<ModuleOptions>(
  async (app, { ctx }) => {
    const service = new VisualService({ ctx });
    ctx.runs.visualChecks = {
      baselinesFor: (run, checks) => service.baselinesFor(run, checks),
      record: (run, results) => service.record(run, results),
      storedBytes: (organizationId) => service.storedBytes(organizationId),
      changePictures: (run) => service.changePictures(run),
    };
    await visualRoutes(app, service);
    app.addHook('onClose', async () => {
      ctx.runs.visualChecks = undefined;
    });
  },
  { name: 'visual', dependencies: ['accounts', 'runs'] },
);
