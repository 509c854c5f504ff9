import type { AppContext, RunFinished } from '../../context.ts';
import type { ServiceModule } from '../index.ts';
import { enqueueRunDeliveries, startWebhookDelivery } from './delivery.ts';
import { webhooksRoutes } from './routes.ts';

export { configureWebhooks, enqueueRunDeliveries, startWebhookDelivery } from './delivery.ts';

/** Subscribes to finished runs and delivers their webhooks until the app closes. */
async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const onFinished = (run: RunFinished) => {
    enqueueRunDeliveries(ctx, run).catch((error: unknown) =>
      ctx.log.error({ err: error, runId: run.runId }, 'recording webhook deliveries failed'),
    );
  };
  ctx.events.on('run.finished', onFinished);
  const stopDelivery = await startWebhookDelivery(ctx);
  return async () => {
    ctx.events.off('run.finished', onFinished);
    await stopDelivery();
  };
}

export const webhooksModule: ServiceModule = { name: 'webhooks', routes: webhooksRoutes, start };
