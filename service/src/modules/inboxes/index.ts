import fp from 'fastify-plugin';
import { listenError } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { Poller } from '../../poller.ts';
import type { ModuleOptions } from '../index.ts';
import { inboxRoutes } from './routes.ts';
import { deleteStaleRunKeys } from './run-access.ts';
import { InboxService } from './service.ts';
import { type SmtpListener, startSmtpListener } from './smtp.ts';

/** How often expired messages are deleted (reads also hide them at once). */
export const retentionSweepMs = 60_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** The inboxes module of this process (routes and SMTP share its service, and so its write batches). */
    inboxes: Inboxes;
  }
}

/**
 * Runs the retention sweep once now, then every `intervalMs`: deletes expired messages and
 * the internal run keys of runs that died without releasing them. Returns the stop function.
 */
export async function startRetentionSweep(
  ctx: Pick<AppContext, 'db' | 'clock' | 'log'>,
  service: InboxService,
  options: { intervalMs: number; onSweep?: (deleted: number) => void },
): Promise<() => Promise<void>> {
  // One sweep at a time, and stopping waits for the running one: nothing is swept (or
  // reported) after stop.
  const sweeps = new Poller({
    intervalMs: options.intervalMs,
    pass: async () => {
      const deleted = await service.sweepExpired();
      await deleteStaleRunKeys(ctx.db, ctx.clock);
      options.onSweep?.(deleted);
    },
    onError: (error) => ctx.log.error({ err: error }, 'inbox retention sweep failed'),
  });
  sweeps.start();
  await sweeps.idle();
  return () => sweeps.stop();
}

/** The inbox service plus its background work: the SMTP listener and the retention sweep. */
export class Inboxes {
  readonly service: InboxService;
  private readonly ctx: AppContext;
  private listener: SmtpListener | undefined;
  private stopSweep: (() => Promise<void>) | undefined;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
    this.service = new InboxService({
      db: ctx.db,
      kind: ctx.database.kind,
      clock: ctx.clock,
      inboxDomain: ctx.config.inboxDomain,
    });
  }

  /** The port the SMTP listener bound (SMTP_PORT=0 picks a free one); undefined when stopped. */
  get smtpPort(): number | undefined {
    return this.listener?.port;
  }

  /**
   * Where senders reach the SMTP listener: `HOST`, or the public URL's host when `HOST` is every
   * interface (`0.0.0.0`, `::`). The port is null while the listener is not running.
   */
  smtpAddress(): { host: string; port: number | null } {
    const { host, publicUrl } = this.ctx.config;
    const everyInterface = host === '0.0.0.0' || host === '::';
    return { host: everyInterface ? new URL(publicUrl).hostname : host, port: this.smtpPort ?? null };
  }

  async start(): Promise<void> {
    if (this.listener) return;
    const { ctx } = this;
    try {
      this.listener = await startSmtpListener({
        host: ctx.config.host,
        port: ctx.config.smtpPort,
        service: this.service,
        log: ctx.log,
        onOutcome: (outcome) => ctx.metrics.smtpMessage(outcome),
      });
    } catch (error) {
      throw listenError(error, 'SMTP_PORT', ctx.config.host, ctx.config.smtpPort);
    }
    ctx.log.info(
      { port: this.listener.port, domain: this.service.inboxDomain },
      'SMTP inbox listener started',
    );
    this.stopSweep = await startRetentionSweep(ctx, this.service, { intervalMs: retentionSweepMs });
  }

  /** Stops taking mail (SMTP closes) and sweeping. */
  async stop(): Promise<void> {
    const stopSweep = this.stopSweep;
    this.stopSweep = undefined;
    await stopSweep?.();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.close();
  }
}

/** Email inboxes; with background work in the API process, the SMTP listener and the sweep. */
export const inboxesPlugin = fp<ModuleOptions>(
  async (app, { ctx, background, role }) => {
    const inboxes = new Inboxes(ctx);
    app.decorate('inboxes', inboxes);
    await inboxRoutes(app, inboxes.service, () => inboxes.smtpAddress());
    if (background && role === 'api') app.addHook('onReady', async () => inboxes.start());
    app.addHook('onClose', async () => inboxes.stop());
  },
  { name: 'inboxes', dependencies: ['accounts'] },
);
