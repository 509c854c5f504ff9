import { openQueue } from '../../adapters/queue/index.ts';
import type { ServiceModule } from '../index.ts';
import { Firer, queueDispatch, workFirings } from './firing.ts';
import { schedulesRoutes } from './routes.ts';
import { runStarter } from './runs-port.ts';
import { Scheduler, schedulers } from './scheduler.ts';

/**
 * Schedules. `start` (every process with background work: the API with background, and
 * `npm run worker`) runs the timer that claims due ticks in the database and sends each
 * claimed firing as a `schedules.fire` job, and works that queue: pg-boss with DATABASE_URL
 * (so whichever instance takes the job fires it), in-process otherwise.
 */
export const schedulesModule: ServiceModule = {
  name: 'schedules',
  routes: schedulesRoutes,
  async start(ctx) {
    const queue = await openQueue(ctx.config, { listen: true });
    let stopWorker: () => Promise<void>;
    try {
      const firer = new Firer({ db: ctx.db, clock: ctx.clock, startRun: runStarter(ctx), log: ctx.log });
      stopWorker = await workFirings(queue, firer, ctx.log);
    } catch (error) {
      await queue.stop().catch(() => {});
      throw error;
    }
    const scheduler = new Scheduler({
      db: ctx.db,
      clock: ctx.clock,
      dispatch: queueDispatch(queue),
      log: ctx.log,
    });
    schedulers.set(ctx, scheduler);
    scheduler.start();
    return async () => {
      await scheduler.stop();
      schedulers.delete(ctx);
      // No new deliveries once the queue is stopped; then wait for the firings in progress.
      await queue.stop();
      await stopWorker();
    };
  },
};
