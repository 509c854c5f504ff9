import type { ServiceModule } from '../index.ts';
import { startRunner } from './dispatcher.ts';
import { runsRoutes } from './routes.ts';
import { closeQueue } from './runtime.ts';

export { type StartRunRequest, type StartRunResult, startRun } from './trigger.ts';

/**
 * Remote runs. `start` runs this process's runner: the embedded default executes runs
 * in-process; with DATABASE_URL every process that starts it (the API with background work,
 * or `npm run worker`) claims runs from the shared database, woken through pg-boss.
 */
export const runsModule: ServiceModule = {
  name: 'runs',
  routes: async (app, ctx) => {
    await runsRoutes(app, ctx);
    // The API process may open the pg-boss queue to wake workers; close it with the app.
    app.addHook('onClose', async () => closeQueue(ctx));
  },
  start: (ctx) => startRunner(ctx, { embedded: !ctx.config.databaseUrl }),
};
