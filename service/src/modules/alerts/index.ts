import fp from 'fastify-plugin';
import type { RunFinished } from '../../context.ts';
import type { ModuleOptions } from '../index.ts';
import { AlertNotifier } from './notifier.ts';
import { alertsRoutes } from './routes.ts';
import { defaultAlertSettings } from './senders.ts';
import { AlertsService } from './service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The alerts module of this process: its settings and the alerts in flight. */
    alerts: AlertNotifier;
  }
}

/**
 * Alert channels (Slack, Microsoft Teams, email). Subscribes to finished runs as the webhooks
 * module does, and uses its private-target rules and settings (a resolver tests replace); with
 * background work, retries alerts and resumes those a restart left pending.
 */
export const alertsPlugin = fp<ModuleOptions>(
  async (app, { ctx, background }) => {
    const webhookSettings = () => app.webhooks.settings;
    const notifier = new AlertNotifier({
      ctx,
      settings: defaultAlertSettings((hostname) => app.webhooks.settings.resolve(hostname)),
      webhookSettings,
    });
    app.decorate('alerts', notifier);
    await alertsRoutes(app, new AlertsService({ ctx, notifier, webhookSettings }));
    const onFinished = (run: RunFinished) => notifier.hear(run);
    ctx.events.on('run.finished', onFinished);
    if (background) app.addHook('onReady', async () => notifier.start());
    app.addHook('onClose', async () => {
      ctx.events.off('run.finished', onFinished);
      await notifier.stop();
    });
  },
  {
    name: 'alerts',
    dependencies: ['accounts', 'schedules', 'webhooks', 'history', 'install-settings'],
  },
);
