import type { AppContext } from '../../context.ts';
import type { ServiceModule } from '../index.ts';
import { inboxRoutes } from './routes.ts';
import { deleteStaleRunKeys } from './run-access.ts';
import { InboxService } from './service.ts';
import { startSmtpListener } from './smtp.ts';

export { issueRunInboxAccess, type RunInboxAccess, usesEmailSteps } from './run-access.ts';

/** How often expired messages are deleted (reads also hide them at once). */
export const retentionSweepMs = 60_000;

const services = new WeakMap<AppContext, InboxService>();
const smtpPorts = new WeakMap<AppContext, number>();

/** The app's one inbox service (routes and SMTP share it, and so its write batches). */
export function inboxServiceOf(ctx: AppContext): InboxService {
  let service = services.get(ctx);
  if (!service) {
    service = new InboxService({
      db: ctx.db,
      kind: ctx.database.kind,
      clock: ctx.clock,
      inboxDomain: ctx.config.inboxDomain,
    });
    services.set(ctx, service);
  }
  return service;
}

/**
 * Runs the retention sweep once now, then every `intervalMs`: deletes expired messages and
 * the internal run keys of runs that died without releasing them. Returns the stop function.
 */
export async function startRetentionSweep(
  ctx: Pick<AppContext, 'db' | 'clock' | 'log'>,
  service: InboxService,
  options: { intervalMs: number; onSweep?: (deleted: number) => void },
): Promise<() => void> {
  const sweep = async () => {
    try {
      const deleted = await service.sweepExpired();
      await deleteStaleRunKeys(ctx.db, ctx.clock);
      options.onSweep?.(deleted);
    } catch (error) {
      ctx.log.error({ err: error }, 'inbox retention sweep failed');
    }
  };
  await sweep();
  const timer = setInterval(() => void sweep(), options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The port the SMTP listener bound (SMTP_PORT=0 picks a free one); undefined before start. */
export function smtpPortOf(ctx: AppContext): number | undefined {
  return smtpPorts.get(ctx);
}

export const inboxesModule: ServiceModule = {
  name: 'inboxes',
  routes: (app, ctx) => inboxRoutes(app, inboxServiceOf(ctx)),
  async start(ctx) {
    const service = inboxServiceOf(ctx);
    const listener = await startSmtpListener({
      host: ctx.config.host,
      port: ctx.config.smtpPort,
      service,
      log: ctx.log,
    });
    smtpPorts.set(ctx, listener.port);
    ctx.log.info({ port: listener.port, domain: service.inboxDomain }, 'SMTP inbox listener started');
    const stopSweep = await startRetentionSweep(ctx, service, { intervalMs: retentionSweepMs });
    return async () => {
      stopSweep();
      smtpPorts.delete(ctx);
      await listener.close();
    };
  },
};
