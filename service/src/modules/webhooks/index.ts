import fp from 'fastify-plugin';
import type { RunFinished } from '../../context.ts';
import type { ModuleOptions } from '../index.ts';
import { WebhookDelivery } from './delivery.ts';
import { webhooksRoutes } from './routes.ts';
import { WebhooksService } from './service.ts';

export { WebhookDelivery } from './delivery.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhooks module of this process: settings, recording and delivering. */
    webhooks: WebhookDelivery;
  }
}

/**
 * Webhooks. Subscribes to finished runs when registered, so it hears the runs recovered when
 * the runner starts (runs is a dependency: its onReady runs first, its onClose after this
 * one's), and with background work delivers until the app closes.
 */
export const webhooksPlugin = fp<ModuleOptions>(
  async (app, { ctx, background }) => {
    const delivery = new WebhookDelivery({
      ctx,
      observe: (outcome, seconds) => ctx.metrics.webhookAttempt(outcome, seconds),
    });
    app.decorate('webhooks', delivery);
    await webhooksRoutes(app, ctx, new WebhooksService({ ctx, delivery }));
    const onFinished = (run: RunFinished) => {
      delivery
        .enqueueRunDeliveries(run)
        .catch((error: unknown) =>
          ctx.log.error({ err: error, runId: run.runId }, 'recording webhook deliveries failed'),
        );
    };
    ctx.events.on('run.finished', onFinished);
    if (background) app.addHook('onReady', async () => delivery.start());
    app.addHook('onClose', async () => {
      ctx.events.off('run.finished', onFinished);
      await delivery.stop();
    });
  },
  { name: 'webhooks', dependencies: ['runs', 'queue', 'install-settings', 'history'] },
);
