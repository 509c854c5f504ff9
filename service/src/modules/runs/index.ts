import fp from 'fastify-plugin';
import type { RunFinished } from '../../context.ts';
import type { ModuleOptions } from '../index.ts';
import { artifactProxyRoutes } from './artifact-proxy.ts';
import { startRunDispatcher } from './dispatcher.ts';
import { healRoutes } from './heal-routes.ts';
import { countPending } from './repository.ts';
import { runsRoutes } from './routes.ts';
import type { RunsRuntime } from './runtime.ts';

export { type StartRunRequest, type StartRunResult, startRun } from './trigger.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The runs module of this process: wake-ups, aborts, and the local dispatcher while started. */
    runs: RunsRuntime;
  }
}

/**
 * Remote runs. With background work, this process's run dispatcher starts on ready: the embedded
 * default executes runs in-process; with DATABASE_URL every process that starts it (the API
 * with background work, or `npm run worker`) claims runs from the shared database, woken
 * through the process's queue.
 */
export const runsPlugin = fp<ModuleOptions>(
  async (app, { ctx, background }) => {
    const runs = ctx.runs;
    app.decorate('runs', runs);
    await runsRoutes(app, ctx);
    await artifactProxyRoutes(app, ctx);
    await healRoutes(app, ctx);
    ctx.metrics.observePending(() => countPending(ctx.db));
    ctx.metrics.observeRunner(() => runs.dispatcher);
    const onFinished = (run: RunFinished) => ctx.metrics.runEnded(run.status, run.durationMs);
    ctx.events.on('run.finished', onFinished);
    if (background) {
      app.addHook('onReady', async () => {
        runs.dispatcher = await startRunDispatcher(ctx, {
          embedded: !ctx.config.databaseUrl,
          // Read at each check: the listeners start after this (PORT or SMTP_PORT 0 pick a port).
          listeners: () => {
            const http = app.server.address();
            const smtp = app.hasDecorator('inboxes') ? app.inboxes.smtpPort : undefined;
            return [
              ...(http && typeof http === 'object' ? [{ port: http.port, name: 'HTTP' }] : []),
              ...(smtp ? [{ port: smtp, name: 'SMTP' }] : []),
            ];
          },
        });
      });
    }
    app.addHook('onClose', async () => {
      await runs.dispatcher?.stop(runs.shutdownGraceMs);
      runs.dispatcher = undefined;
      ctx.events.off('run.finished', onFinished);
    });
  },
  {
    name: 'runs',
    dependencies: [
      'queue',
      'accounts',
      'audit',
      'environments',
      'inboxes',
      'install-settings',
      'presets',
      'tests',
    ],
  },
);
