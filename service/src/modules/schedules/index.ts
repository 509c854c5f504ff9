import fp from 'fastify-plugin';
import type { ModuleOptions } from '../index.ts';
import { Firer, fireJob, queueDispatch, workFirings } from './firing.ts';
import { refuseDeletingNamedPreset, refuseDeletingScheduledTests } from './references.ts';
import { schedulesRoutes } from './routes.ts';
import { runStarter } from './runs-port.ts';
import { Scheduler } from './scheduler.ts';
import { SchedulesService } from './service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The schedules module of this process; `scheduler` is set while it runs here. */
    schedules: { scheduler?: Scheduler; wake(): void };
  }
}

/**
 * Schedules. With background work (the API with background, and `npm run worker`), runs the
 * timer that claims due ticks in the database and sends each claimed firing as a
 * `schedules.fire` job, and works that queue: pg-boss with DATABASE_URL (so whichever
 * instance takes the job fires it), in-process otherwise.
 */
export const schedulesPlugin = fp<ModuleOptions>(
  async (app, { ctx, background }) => {
    const schedules: { scheduler?: Scheduler; wake(): void } = {
      scheduler: undefined,
      /** A schedule changed here: look again now instead of at the end of the current sleep. */
      wake: () => schedules.scheduler?.wake(),
    };
    app.decorate('schedules', schedules);
    const guards = ctx.deleteGuards;
    if (!guards.tests.includes(refuseDeletingScheduledTests)) guards.tests.push(refuseDeletingScheduledTests);
    if (!guards.presets.includes(refuseDeletingNamedPreset)) guards.presets.push(refuseDeletingNamedPreset);
    const service = new SchedulesService({
      db: ctx.db,
      clock: ctx.clock,
      startRun: runStarter(ctx),
      changed: () => schedules.wake(),
    });
    await schedulesRoutes(app, ctx, service);
    if (!background) return;
    let stopWorker: (() => Promise<void>) | undefined;
    app.addHook('onReady', async () => {
      const queue = await ctx.queue.open('work');
      const firer = new Firer({ db: ctx.db, clock: ctx.clock, startRun: runStarter(ctx), log: ctx.log });
      stopWorker = await workFirings(queue, firer, ctx.log);
      const scheduler = new Scheduler({
        db: ctx.db,
        clock: ctx.clock,
        dispatch: queueDispatch(queue),
        log: ctx.log,
      });
      schedules.scheduler = scheduler;
      scheduler.start();
    });
    app.addHook('onClose', async () => {
      await schedules.scheduler?.stop();
      schedules.scheduler = undefined;
      // No new firings taken here; then wait for the ones in progress.
      const queue = ctx.queue.isOpen ? await ctx.queue.open().catch(() => undefined) : undefined;
      await queue?.offWork(fireJob).catch((error: unknown) => {
        ctx.log.warn({ err: error }, 'could not stop taking schedule firings');
      });
      await stopWorker?.();
    });
  },
  {
    name: 'schedules',
    dependencies: ['runs', 'queue', 'accounts', 'audit', 'environments', 'presets', 'tests'],
  },
);
