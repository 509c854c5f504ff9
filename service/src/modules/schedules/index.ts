import type { ServiceModule } from '../index.ts';
import { schedulesRoutes } from './routes.ts';
import { runStarter } from './runs-port.ts';
import { Scheduler, schedulers } from './scheduler.ts';

export const schedulesModule: ServiceModule = {
  name: 'schedules',
  routes: schedulesRoutes,
  async start(ctx) {
    const scheduler = new Scheduler({
      db: ctx.db,
      clock: ctx.clock,
      startRun: runStarter(ctx),
      log: ctx.log,
    });
    schedulers.set(ctx, scheduler);
    scheduler.start();
    return async () => {
      await scheduler.stop();
      schedulers.delete(ctx);
    };
  },
};
