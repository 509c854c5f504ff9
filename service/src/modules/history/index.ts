import fp from 'fastify-plugin';
import type { RunFinished } from '../../context.ts';
import { Poller } from '../../poller.ts';
import type { ModuleOptions } from '../index.ts';
import { historyRoutes } from './routes.ts';
import { HistoryService } from './service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The history module of this process: per-test results across runs, triage, quarantine. */
    history: HistoryService & { pending(): Promise<void> };
  }
}

/** Default retention of per-test results, in days (HISTORY_RETENTION_DAYS). */
export const defaultHistoryRetentionDays = 180;
/** How often the retention sweep looks for old results. */
const pruneIntervalMs = 6 * 60 * 60 * 1000;

/**
 * Test history. Records each ended run's results when it hears `run.finished` (emitted by
 * the process that ended the run, after its outcome committed; runs is a dependency, so the
 * runs recovered at start are heard too), and classes a run's failures for its report through
 * `ctx.runs.failureTriage`. With background work, prunes results past the retention.
 */
export const historyPlugin = fp<ModuleOptions>(
  async (app, { ctx, background }) => {
    const service = new HistoryService({ ctx });
    const writes = new Set<Promise<unknown>>();
    app.decorate(
      'history',
      Object.assign(service, {
        /** Resolves once the results of the runs heard so far are written (tests, shutdown). */
        pending: async () => {
          while (writes.size > 0) await Promise.allSettled([...writes]);
        },
      }),
    );
    await historyRoutes(app, service);
    // The run report shows each failure's class; runs reach it through this port (no import).
    ctx.runs.failureTriage = {
      classesOf: async (scope, runId) =>
        new Map((await service.triage(scope, runId)).failures.map((f) => [f.testId, f.triage])),
    };
    const onFinished = (run: RunFinished) => {
      const write = service
        .record(run.runId)
        .catch((error: unknown) =>
          ctx.log.error({ err: error, runId: run.runId }, 'recording test history failed'),
        )
        .finally(() => writes.delete(write));
      writes.add(write);
    };
    ctx.events.on('run.finished', onFinished);
    const retentionDays = ctx.config.historyRetentionDays ?? defaultHistoryRetentionDays;
    const sweep = new Poller({
      intervalMs: pruneIntervalMs,
      pass: () => service.prune(retentionDays),
      onError: (error) => ctx.log.error({ err: error }, 'test history retention sweep failed'),
    });
    if (background) app.addHook('onReady', async () => sweep.start());
    app.addHook('onClose', async () => {
      ctx.events.off('run.finished', onFinished);
      ctx.runs.failureTriage = undefined;
      await sweep.stop();
      await app.history.pending();
    });
  },
  { name: 'history', dependencies: ['runs', 'accounts', 'tests'] },
);
