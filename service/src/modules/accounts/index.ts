import fp from 'fastify-plugin';
import { defaultRunnerSlots } from '../../config.ts';
import { Poller } from '../../poller.ts';
import { defaultArtifactLimits } from '../../runner/redact-run.ts';
import type { ModuleOptions } from '../index.ts';
import { installRoutes } from './install-routes.ts';
import { InstallService } from './install-service.ts';
import { defaultInboxesPerOrganization } from './quotas-repository.ts';
import { consoleRoutes } from './routes.ts';
import { ConsoleService } from './service.ts';
import { SignInThrottle } from './sign-in-throttle.ts';

/** How often deleted organizations whose grace period passed are looked for. */
const purgeEveryMs = 60 * 60 * 1000;

/**
 * The console's API, and the install administration (`/console/v1/install/...`). The console's
 * static files (and the `/console/*` fallback to index.html) are served by
 * plugins/console-static.ts; the router prefers API routes to that wildcard whatever the order
 * of registration. With background work, purges deleted organizations once their grace passed.
 */
export const accountsPlugin = fp<ModuleOptions>(
  async (app, { ctx, background }) => {
    const service = new ConsoleService({ db: ctx.db, clock: ctx.clock, signInGuards: ctx.signInGuards });
    const install = new InstallService({
      db: ctx.db,
      clock: ctx.clock,
      runnerSlots: ctx.config.runnerSlots ?? defaultRunnerSlots,
      deleteGraceDays: ctx.config.organizationDeleteGraceDays ?? 30,
      quotaDefaults: {
        artifactQuotaBytes: (ctx.config.artifactLimits ?? defaultArtifactLimits).orgMaxBytes,
        inboxLimit: defaultInboxesPerOrganization,
      },
    });
    const throttle = new SignInThrottle({ clock: ctx.clock });
    await consoleRoutes(app, ctx, { service, install, throttle });
    await installRoutes(app, install);
    if (!background) return;
    const purger = new Poller({
      intervalMs: purgeEveryMs,
      pass: async () => {
        const purged = await install.purgeDue();
        if (purged.length > 0) ctx.log.warn({ organizationIds: purged }, 'purged deleted organizations');
      },
      onError: (error) => ctx.log.error({ err: error }, 'purging deleted organizations failed'),
    });
    app.addHook('onReady', async () => purger.start());
    app.addHook('onClose', async () => purger.stop());
  },
  { name: 'accounts' },
);
